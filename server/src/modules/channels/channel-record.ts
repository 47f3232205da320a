import type { AbilityEntity } from './ability.entity';
import type { ChannelEntity } from './channel.entity';
import { type ChannelFields, DEFAULT_GROUP, parseList } from './channel-input';

/** A stored channel as validated fields (lists parsed); `key` is the stored value, sealed (openChannelKey opens it). */
export function fieldsOf(row: ChannelEntity): ChannelFields {
  const groups = parseList(row.group);
  return {
    type: row.type,
    name: row.name,
    key: row.key,
    openaiOrganization: row.openaiOrganization,
    testModel: row.testModel,
    weight: row.weight,
    baseUrl: row.baseUrl,
    other: row.other,
    models: parseList(row.models),
    groups: groups.length ? groups : [DEFAULT_GROUP],
    modelMapping: row.modelMapping,
    statusCodeMapping: row.statusCodeMapping,
    priority: row.priority,
    autoBan: row.autoBan,
    tag: row.tag,
    setting: row.setting,
    paramOverride: row.paramOverride,
    headerOverride: row.headerOverride,
  };
}

/**
 * The columns of a channel row for validated fields (lists joined back into the wire's comma strings); the key is
 * stored as `sealKey` answers it (sealChannelKey: encrypted at rest).
 */
export function columnsOf(fields: ChannelFields, sealKey: (plain: string) => string): Omit<ChannelEntity, 'id' | 'createdTime'> {
  return {
    type: fields.type,
    name: fields.name,
    key: sealKey(fields.key),
    openaiOrganization: fields.openaiOrganization,
    testModel: fields.testModel,
    weight: fields.weight,
    baseUrl: fields.baseUrl,
    other: fields.other,
    models: fields.models.join(','),
    group: fields.groups.join(','),
    modelMapping: fields.modelMapping,
    statusCodeMapping: fields.statusCodeMapping,
    priority: fields.priority,
    autoBan: fields.autoBan,
    tag: fields.tag,
    setting: fields.setting,
    paramOverride: fields.paramOverride,
    headerOverride: fields.headerOverride,
  };
}

/** The routing rows of one channel: its models × its groups, carrying priority, weight and whether it is enabled. */
export function abilityRowsOf(channelId: number, fields: ChannelFields, enabled: boolean): AbilityEntity[] {
  const rows: AbilityEntity[] = [];
  for (const group of fields.groups) {
    for (const model of fields.models) {
      rows.push({ group, model, channelId, enabled, priority: fields.priority, weight: fields.weight, tag: fields.tag });
    }
  }
  return rows;
}
