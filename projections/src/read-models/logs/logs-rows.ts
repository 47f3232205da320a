import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { logAnnotationOf, toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';
import { LOGS_STREAM, LogsEventType, toLogsPurged, toLogsRetentionApplied } from '#server/modules/logs/logs.events';
import { accountLogLine, type LogLine } from './account-log-lines';
import { channelTestConsumed, channelTestLogRow } from './channel-test-log-row';
import { chargeTextsDerive, type ConsumeFacts, consumeFactsOf, storedConsumeText, storedFacts } from './consume-log-columns';
import { consumeLogColumns, type ConsumeLogRow, consumeLogRow } from './consume-log-row';
import { purgeLogsBefore } from './log-partitions';

/**
 * What the logs projection writes for an event, shared by its live path (logs.projection.ts) and its rebuild fold
 * (logs-bulk-fold.ts), so both write the same rows by construction.
 */

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The consume columns (consume-log-columns.ts): what the wording and `other` of a consume row are derived from. */
export const FACT_COLUMNS = 'model_ratio, completion_ratio, group_ratio, model_price, frt, cache_tokens, usage_source, end_reason';

/** A consume row as stored: `content` / `other` NULL where its consume columns give them back exactly. */
export type StoredConsumeRow = Omit<ConsumeLogRow, 'content' | 'other'> & {
  content: string | null;
  other: string | null;
  facts: ConsumeFacts;
};

function stored(row: ConsumeLogRow, facts: ConsumeFacts): StoredConsumeRow {
  const text = storedConsumeText(row, facts);
  // Written out rather than two objects spread into a third: one object per row (a rebuild makes one per charge).
  return {
    userId: row.userId,
    createdAt: row.createdAt,
    type: row.type,
    content: text.content,
    username: row.username,
    tokenName: row.tokenName,
    modelName: row.modelName,
    quota: row.quota,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    useTime: row.useTime,
    isStream: row.isStream,
    channelId: row.channelId,
    tokenId: row.tokenId,
    group: row.group,
    other: text.other,
    facts: text.facts,
  };
}

/**
 * A stored consume row's values in the column order of the consume insert (`id, user_id, created_at, type, content,
 * username, token_name, model_name, quota, prompt_tokens, completion_tokens, use_time, is_stream, channel_id, token_id,
 * "group", other`, then FACT_COLUMNS): apply's parameters and the rebuild's COPY row.
 */
export function consumeRowValues(position: number, row: StoredConsumeRow): unknown[] {
  const facts = row.facts;
  return [
    position,
    row.userId,
    row.createdAt,
    row.type,
    row.content,
    row.username,
    row.tokenName,
    row.modelName,
    row.quota,
    row.promptTokens,
    row.completionTokens,
    row.useTime,
    row.isStream,
    row.channelId,
    row.tokenId,
    row.group,
    row.other,
    facts.modelRatio,
    facts.completionRatio,
    facts.groupRatio,
    facts.modelPrice,
    facts.frt,
    facts.cacheTokens,
    facts.usageSource,
    facts.endReason,
  ];
}

/** The row of a relay charge (QuotaConsumed on the user's account stream). */
export function chargeRow(event: RecordedEvent, data: QuotaConsumedData, userId: number): StoredConsumeRow {
  const facts = consumeFactsOf(data);
  if (!chargeTextsDerive(data, facts)) return stored(consumeLogRow(userId, data, event.createdAt), facts);
  // Both texts derive back (nearly every charge): neither is built, both are NULL, as storedConsumeText would leave them.
  const row = consumeLogColumns(userId, data, event.createdAt, null, null) as StoredConsumeRow;
  row.facts = storedFacts(facts);
  return row;
}

/** The row of a passed channel test (ChannelTestLogged on `logs`). */
export function channelTestRow(event: RecordedEvent): StoredConsumeRow {
  return stored(channelTestLogRow(event.data, event.createdAt), consumeFactsOf(channelTestConsumed(event.data)));
}

/** The consume-shaped rows (relay charges, channel tests): inserted set-based when they come in a run. */
export const isConsumeRow = (event: RecordedEvent) => event.type === QUOTA_CONSUMED || event.type === LogsEventType.ChannelTestLogged;

/**
 * The consume row `apply` writes for a relay charge or a channel test (same checks, same order), or null when it
 * writes none.
 */
export function consumeRowOf(event: RecordedEvent): StoredConsumeRow | null {
  if (event.type === LogsEventType.ChannelTestLogged) {
    return event.streamId === LOGS_STREAM ? channelTestRow(event) : null;
  }
  if (event.type !== QUOTA_CONSUMED || streamCategory(event.streamId) !== 'account') return null;
  // LogConsumeEnabled was off when the request settled (recorded in the event, so a rebuild skips it too).
  const data = quotaConsumedData(event);
  if (data.logConsume === false) return null;
  return chargeRow(event, data, streamKey(event.streamId));
}

/** The row of an account event (an admin or system line), or null when it has none. */
export function accountRowOf(event: RecordedEvent): { userId: number; createdAt: number; line: LogLine; username: string } | null {
  if (streamCategory(event.streamId) !== 'account') return null;
  const annotation = logAnnotationOf(event);
  const line = accountLogLine(toAccountEvent(event), annotation.quotaDisplay);
  if (!line) return null;
  return { userId: streamKey(event.streamId), createdAt: unixSeconds(event.createdAt), line, username: annotation.username };
}

/** A purge an event asks for (an admin's LogsPurged, the retention job's LogsRetentionApplied with admin 0), or null. */
export function purgeOf(event: RecordedEvent): { before: number; adminId: number } | null {
  if (event.streamId !== LOGS_STREAM) return null;
  if (event.type === LogsEventType.LogsPurged) return toLogsPurged(event.data);
  if (event.type === LogsEventType.LogsRetentionApplied) return { before: toLogsRetentionApplied(event.data).before, adminId: 0 };
  return null;
}

/**
 * A purge: every row created before `before` goes (whole month partitions dropped, the boundary month's rows
 * deleted), and log_purges records how many.
 */
export async function applyPurge(event: RecordedEvent, purge: { before: number; adminId: number }, manager: EntityManager): Promise<void> {
  const done: unknown[] = await manager.query('SELECT 1 FROM log_purges WHERE event_id = $1', [event.id]);
  // The runner applies each event once; this guard only keeps a hand-run replay from recording twice.
  if (done.length) return;
  const deleted = await purgeLogsBefore(manager, purge.before);
  await manager.query(
    'INSERT INTO log_purges (event_id, position, target_timestamp, deleted, admin_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [event.id, event.position, purge.before, deleted, purge.adminId, unixSeconds(event.createdAt)],
  );
}
