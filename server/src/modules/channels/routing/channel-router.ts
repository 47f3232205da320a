import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CHANNEL_STATUS_NOTIFY_CHANNEL } from '#projections/read-models/channel-status/channel-status.projection';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { SecretBox } from '#server/common/crypto/secret-box';
import { LedgerListener } from '#server/ledger/postgres/ledger-listener';
import { parseList } from '../channel-input';
import { openChannelKey } from '../channel-keys';
import { CHANNELS_CHANGED_TOPIC } from '../channels.topics';
import { type RoutableChannel, RoutingTable, type SelectOptions } from './routing-table';

export type { RoutableChannel } from './routing-table';

/** A safety net under the two notifications (new-api re-reads its channel cache every SYNC_FREQUENCY). */
const PERIODIC_RELOAD_MS = 60_000;

interface ChannelRow {
  id: number;
  type: number;
  name: string;
  key: string;
  base_url: string;
  models: string;
  model_mapping: string;
  group: string;
  priority: string;
  weight: number;
  auto_ban: number;
  other: string;
  setting: string;
  header_override: string;
  param_override: string;
  openai_organization: string | null;
  status_code_mapping: string;
  test_model: string | null;
  status: number;
}

function jsonObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function stringMap(text: string): Record<string, string> {
  const map: Record<string, string> = {};
  for (const [name, value] of Object.entries(jsonObject(text))) {
    if (typeof value === 'string' || typeof value === 'number') map[name] = String(value);
  }
  return map;
}

export function toRoutableChannel(row: ChannelRow): RoutableChannel {
  const groups = parseList(row.group);
  return {
    id: row.id,
    type: row.type,
    name: row.name,
    key: row.key,
    baseUrl: row.base_url,
    models: parseList(row.models),
    modelMapping: stringMap(row.model_mapping),
    groups: groups.length ? groups : ['default'],
    priority: Number(row.priority),
    weight: row.weight,
    autoBan: row.auto_ban === 1,
    other: row.other,
    config: jsonObject(row.setting),
    headerOverride: stringMap(row.header_override),
    paramOverride: jsonObject(row.param_override),
    openaiOrganization: row.openai_organization,
    statusCodeMapping: stringMap(row.status_code_mapping),
    testModel: row.test_model,
    status: row.status,
  };
}

/**
 * Channel selection for the relay (cross-team contract 2), in memory: `select`, `get` and `modelsForGroup` never
 * touch the database. The snapshot (channels joined with their projected status) reloads when channel
 * configuration changes (CHANNELS_CHANGED_TOPIC), when the channel-status projection commits a status change
 * (Postgres NOTIFY), and every minute as a safety net. Reloads coalesce: a change during a load loads once more.
 */
@Injectable()
export class ChannelRouter implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ChannelRouter.name);
  private table = new RoutingTable([]);
  private inFlight: Promise<void> | null = null;
  private again = false;
  private listener: LedgerListener | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidationService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly box: SecretBox,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
    await this.invalidation.on(CHANNELS_CHANGED_TOPIC, () => this.scheduleReload());
    this.listener = new LedgerListener(this.config.DATABASE_URL, CHANNEL_STATUS_NOTIFY_CHANNEL);
    this.listener.subscribe(() => this.scheduleReload());
    this.timer = setInterval(() => this.scheduleReload(), PERIODIC_RELOAD_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.listener?.close();
    await this.inFlight?.catch(() => undefined);
  }

  select(group: string, model: string, options?: SelectOptions): RoutableChannel | null {
    return this.table.select(group, model, options);
  }

  get(id: number): RoutableChannel | null {
    return this.table.get(id);
  }

  modelsForGroup(group: string): string[] {
    return this.table.modelsForGroup(group);
  }

  /** The enabled abilities (model → groups) of the current snapshot; the same map until the next reload. */
  enabledModelGroups(): ReadonlyMap<string, readonly string[]> {
    return this.table.enabledModelGroups();
  }

  /** Loads a fresh snapshot; resolves once the snapshot reflects everything committed before the call. */
  reload(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        this.table = new RoutingTable(await this.load());
      } while (this.again && !this.closed);
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private scheduleReload(): void {
    if (this.closed) return;
    this.reload().catch((error: unknown) => this.logger.error(`channel snapshot reload failed, keeping the last one: ${String(error)}`));
  }

  private async load(): Promise<RoutableChannel[]> {
    const rows: ChannelRow[] = await this.dataSource.query(
      `SELECT c.id, c.type, c.name, c.key, c.base_url, c.models, c.model_mapping, c."group", c.priority, c.weight, c.auto_ban,
              c.other, c.setting, c.header_override, c.param_override, c.openai_organization, c.status_code_mapping,
              c.test_model, COALESCE(s.status, 1) AS status
         FROM channels c LEFT JOIN channel_status s ON s.channel_id = c.id`,
    );
    // Keys are opened here, once per snapshot: selection and the upstream call read the plain key from memory.
    const channels: RoutableChannel[] = [];
    for (const row of rows) {
      try {
        channels.push(toRoutableChannel({ ...row, key: openChannelKey(this.box, row.key) }));
      } catch (error) {
        this.logger.error(`channel #${row.id} is left out of routing: ${(error as Error).message}`);
      }
    }
    return channels;
  }
}
