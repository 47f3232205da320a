import { abilityRowsOf, columnsOf, fieldsOf } from './channel-record';
import type { ChannelEntity } from './channel.entity';

const row: ChannelEntity = {
  id: 7,
  type: 1,
  key: 'sk-a',
  openaiOrganization: null,
  testModel: null,
  name: 'main',
  weight: 3,
  createdTime: 1,
  baseUrl: '',
  other: '',
  models: 'gpt-4o, gpt-4o-mini,,gpt-4o',
  group: 'default,vip',
  modelMapping: '',
  statusCodeMapping: '',
  priority: 5,
  autoBan: 1,
  tag: null,
  setting: '',
  paramOverride: '',
  headerOverride: '',
};

describe('channel records', () => {
  it('reads the comma lists trimmed and without repeats, and writes them back joined', () => {
    const fields = fieldsOf(row);
    expect(fields.models).toEqual(['gpt-4o', 'gpt-4o-mini']);
    expect(fields.groups).toEqual(['default', 'vip']);
    expect(columnsOf(fields, (key) => `sealed:${key}`)).toMatchObject({ models: 'gpt-4o,gpt-4o-mini', group: 'default,vip' });
  });

  it('reads an empty group as the default group', () => {
    expect(fieldsOf({ ...row, group: '' }).groups).toEqual(['default']);
  });

  it('builds one routing row per group and model with the channel priority, weight and enabled flag', () => {
    const rows = abilityRowsOf(7, fieldsOf(row), false);
    expect(rows).toHaveLength(4);
    expect(rows.map((ability) => `${ability.group}/${ability.model}`)).toEqual([
      'default/gpt-4o',
      'default/gpt-4o-mini',
      'vip/gpt-4o',
      'vip/gpt-4o-mini',
    ]);
    expect(rows.every((ability) => ability.channelId === 7 && ability.priority === 5 && ability.weight === 3 && !ability.enabled)).toBe(
      true,
    );
  });
});
