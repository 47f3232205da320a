import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CacheInvalidationService } from '../../infrastructure/redis/cache-invalidation.service';
import { OPTION_DEFAULTS } from './option-defaults';
import { OptionEntity } from './option.entity';

const TOPIC = 'options';

/**
 * The live option map: defaults overridden by saved rows, cached in process and reloaded on every process
 * when any process saves (Redis pub/sub), so no option needs a restart.
 */
@Injectable()
export class OptionsService implements OnModuleInit {
  private readonly logger = new Logger(OptionsService.name);
  private values = new Map<string, string>(Object.entries(OPTION_DEFAULTS));
  /** Reloads can overlap (two saves in quick succession); only the latest one started may install its map. */
  private reloadSequence = 0;

  constructor(
    @InjectRepository(OptionEntity) private readonly repository: Repository<OptionEntity>,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.reload();
    const reloadLogged = () => {
      this.reload().catch((error: unknown) => this.logger.error(`option reload failed: ${String(error)}`));
    };
    await this.invalidation.on(TOPIC, reloadLogged);
    this.invalidation.onResync(reloadLogged);
  }

  async reload(): Promise<void> {
    const sequence = ++this.reloadSequence;
    const rows = await this.repository.find();
    if (sequence !== this.reloadSequence) return;
    const next = new Map<string, string>(Object.entries(OPTION_DEFAULTS));
    for (const row of rows) next.set(row.key, row.value);
    this.values = next;
  }

  get(key: string): string {
    return this.values.get(key) ?? '';
  }

  getBool(key: string): boolean {
    return this.get(key) === 'true';
  }

  /** Lenient like new-api: an unparseable number is 0. */
  getNumber(key: string): number {
    const value = Number(this.get(key));
    return Number.isFinite(value) ? value : 0;
  }

  getJson<T>(key: string, fallback: T): T {
    try {
      return JSON.parse(this.get(key)) as T;
    } catch {
      return fallback;
    }
  }

  entries(): Array<[string, string]> {
    return [...this.values.entries()];
  }

  /** Saves several keys in one transaction, then tells every process to reload. */
  async save(changes: Record<string, string>): Promise<void> {
    await this.repository.manager.transaction(async (manager) => {
      for (const [key, value] of Object.entries(changes)) {
        await manager.upsert(OptionEntity, { key, value }, ['key']);
      }
    });
    for (const [key, value] of Object.entries(changes)) this.values.set(key, value);
    await this.invalidation.publish(TOPIC);
  }
}
