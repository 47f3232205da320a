import {
  channelUpdateFrom,
  decodeChannelBody,
  defaultOther,
  newChannelsFrom,
  normalizeBaseUrl,
  parseList,
  validateChannel,
  type ChannelFields,
} from './channel-input';

const fields: ChannelFields = {
  type: 1,
  name: 'main',
  key: 'sk-1',
  openaiOrganization: null,
  testModel: null,
  weight: 0,
  baseUrl: '',
  other: '',
  models: ['gpt-4o'],
  groups: ['default'],
  modelMapping: '',
  statusCodeMapping: '',
  priority: 0,
  autoBan: 1,
  tag: null,
  setting: '',
  paramOverride: '',
  headerOverride: '',
};

describe('channel form rules, as the console form checks them', () => {
  it('needs a name and a key, then at least one model, in that order', () => {
    expect(() => validateChannel({ ...fields, name: ' ', models: [] })).toThrow('请填写渠道名称和渠道密钥！');
    expect(() => validateChannel({ ...fields, key: '' })).toThrow('请填写渠道名称和渠道密钥！');
    expect(() => validateChannel({ ...fields, models: [] })).toThrow('请至少选择一个模型！');
  });

  it('accepts only a JSON object of strings as model mapping, and of status codes as status-code mapping', () => {
    expect(validateChannel({ ...fields, modelMapping: '{"gpt-4o":"gpt-4o-2024-08-06"}' }).modelMapping).toBe(
      '{"gpt-4o":"gpt-4o-2024-08-06"}',
    );
    for (const modelMapping of ['{', '[]', 'null', '"x"', '{"a":1}']) {
      expect(() => validateChannel({ ...fields, modelMapping })).toThrow('模型映射必须是合法的 JSON 格式！');
    }
    expect(validateChannel({ ...fields, statusCodeMapping: '{"400":"500"}' }).statusCodeMapping).toBe('{"400":"500"}');
    expect(() => validateChannel({ ...fields, statusCodeMapping: '{"400":"five"}' })).toThrow('状态码复写必须是合法的 JSON 格式！');
  });

  it('removes trailing slashes, applies the Azure and Spark defaults, clamps priority and weight', () => {
    expect(normalizeBaseUrl(' https://a.example/v1/// ')).toBe('https://a.example/v1');
    expect(validateChannel({ ...fields, baseUrl: 'http://x/' }).baseUrl).toBe('http://x');
    expect(validateChannel({ ...fields, type: 3 }).other).toBe('2023-06-01-preview');
    expect(validateChannel({ ...fields, type: 3, other: '2024-02-01' }).other).toBe('2024-02-01');
    expect(defaultOther(18, '')).toBe('v2.1');
    expect(defaultOther(1, '')).toBe('');
    expect(validateChannel({ ...fields, priority: -1000, weight: -4 })).toMatchObject({ priority: -999, weight: 0 });
    expect(() => validateChannel({ ...fields, weight: 2 ** 31 })).toThrow('无效的参数');
  });

  it('checks the Vertex AI region and refuses unknown types', () => {
    expect(() => validateChannel({ ...fields, type: 41 })).toThrow('部署地区不能为空');
    expect(() => validateChannel({ ...fields, type: 41, other: '{"us":"x"}' })).toThrow('部署地区必须包含default字段');
    expect(validateChannel({ ...fields, type: 41, other: 'us-central1' }).other).toBe('us-central1');
    expect(() => validateChannel({ ...fields, type: 0 })).toThrow('无效的参数');
  });

  it('reads comma lists trimmed, without blanks or repeats, and an empty group list as default', () => {
    expect(parseList(' a, b ,,a,')).toEqual(['a', 'b']);
    expect(validateChannel({ ...fields, groups: [] }).groups).toEqual(['default']);
  });
});

const body = (value: Record<string, unknown>) => decodeChannelBody(value);

describe('create and update bodies', () => {
  it('makes one channel per key line, except for Vertex AI', () => {
    const created = newChannelsFrom(body({ type: 1, name: 'n', key: 'a\r\nb\n\nc', models: 'm' }));
    expect(created.channels.map((channel) => channel.key)).toEqual(['a', 'b', 'c']);
    expect(created.status).toBe(1);
    const vertex = newChannelsFrom(body({ type: 41, name: 'v', key: '{\n"a":1\n}', models: 'm', other: 'r' }));
    expect(vertex.channels).toHaveLength(1);
    expect(() => newChannelsFrom(body({ type: 1, name: 'n', key: 'k', models: 'm', status: 3 }))).toThrow('无效的参数');
  });

  it('updates non-zero plain fields and present nullable ones, and validates the merged channel', () => {
    const update = channelUpdateFrom(body({ id: 1, name: '', key: '', weight: 0, priority: 0, base_url: '', status: 2 }), {
      ...fields,
      weight: 9,
      priority: 4,
      baseUrl: 'http://x',
    });
    expect(update.fields).toMatchObject({ name: 'main', key: 'sk-1', weight: 0, priority: 0, baseUrl: '' });
    expect(update.status).toBe(2);
    expect(channelUpdateFrom(body({ id: 1, status: 0 }), fields).status).toBeUndefined();
    // An auto-disabled channel's own status sent back is no change; 3 is never a transition an admin makes.
    expect(channelUpdateFrom(body({ id: 1, status: 3 }), fields, 3).status).toBeUndefined();
    expect(() => channelUpdateFrom(body({ id: 1, status: 3 }), fields, 1)).toThrow('无效的参数');
    expect(() => channelUpdateFrom(body({ id: 1, status: 3 }), fields)).toThrow('无效的参数');
    expect(channelUpdateFrom(body({ id: 1, status: 1 }), fields, 3).status).toBe(1);
    expect(() => channelUpdateFrom(body({ id: 1, models: ',' }), fields)).toThrow('请至少选择一个模型！');
  });
});
