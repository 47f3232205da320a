import { otherForUser, toLogJson, toSelfLogJson, type LogRow } from './log.serializer';

const row: LogRow = {
  id: '42',
  user_id: 7,
  created_at: '1732400000',
  type: 2,
  content: 'c',
  username: 'alice',
  token_name: 't',
  model_name: 'm',
  quota: '225',
  prompt_tokens: 1000,
  completion_tokens: 500,
  use_time: 3,
  is_stream: true,
  channel_id: 15,
  token_id: 12,
  group: 'vip',
  other: '{"admin_info":{"use_channel":["12","15"]},"frt":420,"model_ratio":0.075}',
  model_ratio: null,
  completion_ratio: null,
  group_ratio: null,
  model_price: null,
  frt: null,
  cache_tokens: null,
  usage_source: null,
  end_reason: null,
};

describe('log serializer', () => {
  it('answers the new-api Log JSON: numbers as numbers, the channel id as `channel`', () => {
    expect(toLogJson(row)).toEqual({
      id: 42,
      user_id: 7,
      created_at: 1732400000,
      type: 2,
      content: 'c',
      username: 'alice',
      token_name: 't',
      model_name: 'm',
      quota: 225,
      prompt_tokens: 1000,
      completion_tokens: 500,
      use_time: 3,
      is_stream: true,
      channel: 15,
      token_id: 12,
      group: 'vip',
      other: row.other,
    });
  });

  it('hides the id and admin_info from the owner, as new-api does', () => {
    const json = toSelfLogJson(row);
    expect(json.id).toBe(0);
    expect(JSON.parse(json.other)).toEqual({ frt: 420, model_ratio: 0.075 });
  });

  it('turns an other that is not a JSON object into "null" for the owner', () => {
    expect(otherForUser('')).toBe('null');
    expect(otherForUser('null')).toBe('null');
    expect(otherForUser('[1]')).toBe('null');
    expect(otherForUser('{"admin_info":{}}')).toBe('{}');
  });

  it('derives the wording and other of a slim consume row from its consume columns', () => {
    const slim: LogRow = {
      ...row,
      content: null,
      other: null,
      prompt_tokens: 0,
      completion_tokens: 0,
      model_ratio: 0.075,
      completion_ratio: 4,
      group_ratio: 1.5,
      model_price: -1,
      frt: 420,
      cache_tokens: 3,
      usage_source: 0,
      end_reason: 1,
    };
    expect(toLogJson(slim)).toMatchObject({
      content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.50（可能是上游超时）',
      other:
        '{"admin_info":{"use_channel":["15"]},"cache_tokens":3,"completion_ratio":4,"end_reason":"client_gone","frt":420,"group_ratio":1.5,"model_price":-1,"model_ratio":0.075,"usage_source":"upstream"}',
    });
    expect(toSelfLogJson(slim).other).toBe(
      '{"cache_tokens":3,"completion_ratio":4,"end_reason":"client_gone","frt":420,"group_ratio":1.5,"model_price":-1,"model_ratio":0.075,"usage_source":"upstream"}',
    );
    // A stored text wins over the columns.
    expect(toLogJson({ ...slim, content: 'own' }).content).toBe('own');
  });

  it('reads a NULL consume column of a row with facts as its fallback: the answer of a row that stored the values', () => {
    const withValues: LogRow = {
      ...row,
      is_stream: false,
      content: null,
      other: null,
      model_ratio: 0.075,
      completion_ratio: 1,
      group_ratio: 1,
      model_price: -1,
      frt: -1000,
      cache_tokens: 0,
      usage_source: 0,
      end_reason: 0,
    };
    const withNulls: LogRow = {
      ...withValues,
      completion_ratio: null,
      group_ratio: null,
      model_price: null,
      frt: null,
      cache_tokens: null,
    };
    expect(toLogJson(withNulls)).toEqual(toLogJson(withValues));
    expect(toSelfLogJson(withNulls)).toEqual(toSelfLogJson(withValues));
    expect(toLogJson(withNulls).other).toBe(
      '{"admin_info":{"use_channel":["15"]},"cache_tokens":0,"completion_ratio":1,"end_reason":"completed","frt":-1000,"group_ratio":1,"model_price":-1,"model_ratio":0.075,"usage_source":"upstream"}',
    );
    // Without model_ratio the row has no facts: nothing is derived, whatever the other columns hold.
    expect(toLogJson({ ...withNulls, model_ratio: null, completion_ratio: 4 })).toMatchObject({ content: '', other: '' });
  });
});
