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
});
