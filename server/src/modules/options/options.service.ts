import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { resealRows } from '../../common/crypto/reseal-rows';
import { SecretBox } from '../../common/crypto/secret-box';
import { CacheInvalidationService } from '../../infrastructure/redis/cache-invalidation.service';
import { OPTION_DEFAULTS } from './option-defaults';
import { OptionEntity } from './option.entity';
import { isSecretOption } from './option-rules';

const TOPIC = 'options';

/** The additional authenticated data of a sealed option value: its name (a value does not open under another). */
export const optionPurpose = (key: string) => `options.${key}`;

/**
 * The live option map: defaults overridden by saved rows, cached in process and reloaded on every process
 * when any process saves (Redis pub/sub), so no option needs a restart. Secret options (isSecretOption: SMTPToken,
 * GitHubClientSecret, EpayKey …) are stored sealed (SecretBox) and opened once per reload, into this map only.
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
    private readonly box: SecretBox,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.resealSecrets();
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
    for (const row of rows) next.set(row.key, this.openValue(row.key, row.value));
    this.values = next;
  }

  /** A stored value as the map holds it: secret ones opened; one that does not open is logged (never its value) and left empty. */
  private openValue(key: string, stored: string): string {
    if (!isSecretOption(key)) return stored;
    try {
      return this.box.open(stored, optionPurpose(key));
    } catch (error) {
      this.logger.error(`option ${key} is left empty: ${(error as Error).message}`);
      return '';
    }
  }

  /** At start: seals secret options stored in plain text (before encryption at rest) or with an old key (a rotation). */
  private async resealSecrets(): Promise<void> {
    const count = await resealRows(this.repository.manager.connection, this.box, {
      select: `SELECT key AS id, value FROM options WHERE key LIKE '%Token' OR key LIKE '%Secret' OR key LIKE '%Key' ORDER BY key FOR UPDATE`,
      update: 'UPDATE options SET value = $2 WHERE key = $1',
      purpose: optionPurpose,
    });
    if (count) this.logger.log(`secrets: re-encrypted ${count} secret option(s) with key ${this.box.current.id}`);
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
        const stored = isSecretOption(key) ? this.box.seal(value, optionPurpose(key)) : value;
        await manager.upsert(OptionEntity, { key, value: stored }, ['key']);
      }
    });
    for (const [key, value] of Object.entries(changes)) this.values.set(key, value);
    await this.invalidation.publish(TOPIC);
  }
}
