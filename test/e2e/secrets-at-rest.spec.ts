import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { dataKey, SecretBox } from '#server/common/crypto/secret-box';
import { createHttpApp } from '#server/http-app';
import { ChannelRouter } from '#server/modules/channels/index';
import { OptionsService } from '#server/modules/options/options.service';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, rootCaller } from './users-support';

const KEY_1 = 'first-secrets-key-first-secrets-key-0001';
const KEY_2 = 'second-secrets-key-second-secrets-key-02';
const KEY_3 = 'third-secrets-key-third-secrets-key-0003';
const id1 = dataKey(KEY_1, 'KEY_1').id;
const id2 = dataKey(KEY_2, 'KEY_2').id;

/**
 * Channel keys and secret options are stored encrypted with SECRETS_KEY (or the key generated into DATA_DIR), opened
 * once into the router and the option map; each start re-encrypts plain values (stored by an earlier version) and
 * values of the old keys (SECRETS_OLD_KEYS) with the current key, and a start without the key that sealed a value
 * refuses to run. Several processes share the database here, each with its own keys, as restarts would.
 */
describe('secrets at rest', () => {
  let first: TestApp;
  let root: Caller;
  let dataDir: string;
  let channelId: number;
  let legacyId: number;
  const started: NestFastifyApplication[] = [];

  beforeAll(async () => {
    first = await createTestApp({ env: { SECRETS_KEY: KEY_1 } });
    root = await rootCaller(first);
    dataDir = mkdtempSync(join(tmpdir(), 'tollgate-secrets-e2e-'));
  });
  afterAll(async () => {
    for (const app of started) await app.close().catch(() => undefined);
    await first.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Another process on the same database and Redis, started with `env`'s keys. */
  const boot = async (env: { SECRETS_KEY?: string; SECRETS_OLD_KEYS?: string; DATA_DIR?: string }) => {
    const app = await createHttpApp({ ...first.config, ...env, roles: ['api'] }, { logger: false });
    started.push(app);
    await app.init();
    return app;
  };
  const storedKeys = async (): Promise<Array<{ id: number; key: string }>> =>
    dataSource(first).query('SELECT id, key FROM channels ORDER BY id');
  const storedOptions = async (): Promise<Record<string, string>> => {
    const rows: Array<{ key: string; value: string }> = await dataSource(first).query('SELECT key, value FROM options');
    return Object.fromEntries(rows.map(({ key, value }) => [key, value]));
  };

  it('stores channel keys and secret options sealed with SECRETS_KEY; the router and the option map hold them open', async () => {
    const created = await call(first, root, 'post', '/api/channel/', {
      type: 1,
      name: 'at-rest',
      key: 'sk-at-rest-0123456789',
      base_url: 'http://127.0.0.1:9',
      models: 'at-rest-model',
      group: 'default',
    }).expect(200);
    expect(created.body.success).toBe(true);
    [{ id: channelId }] = await storedKeys();
    for (const [key, value] of [
      ['SMTPToken', 'smtp-at-rest-secret'],
      ['SystemName', 'Gate At Rest'],
    ]) {
      expect((await call(first, root, 'put', '/api/option/', { key, value }).expect(200)).body).toEqual({ success: true, message: '' });
    }

    const [row] = await storedKeys();
    expect(row.key).toMatch(new RegExp(`^enc:v1:${id1}:[\\w-]+:[\\w-]+:[\\w-]+$`));
    expect(row.key).not.toContain('at-rest-0123456789');
    const options = await storedOptions();
    expect(options.SMTPToken).toMatch(new RegExp(`^enc:v1:${id1}:`));
    expect(options.SystemName).toBe('Gate At Rest');
    expect(first.app.get(ChannelRouter).get(channelId)?.key).toBe('sk-at-rest-0123456789');
    expect(first.app.get(OptionsService).get('SMTPToken')).toBe('smtp-at-rest-secret');
    // Another column's sealed value does not open as a channel key (the purpose is authenticated).
    expect(() => first.app.get(SecretBox).open(options.SMTPToken, 'channels.key')).toThrow(/does not open/);
  });

  it('at start seals plain values of an earlier version and re-encrypts the old key values with the new key (rotation)', async () => {
    // What a version without encryption at rest left behind.
    [{ id: legacyId }] = await dataSource(first).query(
      `INSERT INTO channels (type, name, key, models, "group") VALUES (1, 'legacy', 'sk-legacy-plain-0123456789', 'legacy-model', 'default') RETURNING id`,
    );
    await dataSource(first).query(
      `INSERT INTO options (key, value) VALUES ('EpayKey', 'epay-legacy-plain') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`,
    );

    const rotated = await boot({ SECRETS_KEY: KEY_2, SECRETS_OLD_KEYS: KEY_1 });
    expect(await storedKeys()).toEqual([
      { id: channelId, key: expect.stringMatching(new RegExp(`^enc:v1:${id2}:`)) },
      { id: legacyId, key: expect.stringMatching(new RegExp(`^enc:v1:${id2}:`)) },
    ]);
    const options = await storedOptions();
    expect([options.SMTPToken, options.EpayKey]).toEqual([
      expect.stringMatching(`^enc:v1:${id2}:`),
      expect.stringMatching(`^enc:v1:${id2}:`),
    ]);
    expect(options.SystemName).toBe('Gate At Rest');
    expect(rotated.get(ChannelRouter).get(channelId)?.key).toBe('sk-at-rest-0123456789');
    expect(rotated.get(ChannelRouter).get(legacyId)?.key).toBe('sk-legacy-plain-0123456789');
    expect(rotated.get(OptionsService).get('SMTPToken')).toBe('smtp-at-rest-secret');
    expect(rotated.get(OptionsService).get('EpayKey')).toBe('epay-legacy-plain');

    // A process still on the old key alone cannot open the new values: it routes without those channels and
    // leaves the option empty rather than answer ciphertext as a key (a rotation gives every process both keys).
    await first.app.get(ChannelRouter).reload();
    expect(first.app.get(ChannelRouter).get(channelId)).toBeNull();
    await first.app.get(OptionsService).reload();
    expect(first.app.get(OptionsService).get('SMTPToken')).toBe('');

    // The new key alone now opens everything: a start without SECRETS_OLD_KEYS is fine.
    const after = await boot({ SECRETS_KEY: KEY_2 });
    expect(after.get(ChannelRouter).get(legacyId)?.key).toBe('sk-legacy-plain-0123456789');
  });

  it('refuses to start without the key that sealed the stored values, naming its id and nothing secret', async () => {
    const before = await storedKeys();
    const app = await createHttpApp({ ...first.config, SECRETS_KEY: KEY_3, roles: ['api'] }, { logger: false });
    started.push(app);
    const failure = await app.init().then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(new RegExp(`sealed with key ${id2}, which is neither SECRETS_KEY nor in SECRETS_OLD_KEYS`));
    expect(failure?.message).not.toContain('sk-');
    expect(await storedKeys()).toEqual(before);
  });

  it('without SECRETS_KEY, uses the key generated into DATA_DIR/secret-key, and a restart opens what it sealed', async () => {
    const generated = await boot({ SECRETS_KEY: '', SECRETS_OLD_KEYS: KEY_2, DATA_DIR: dataDir });
    const fileKey = readFileSync(join(dataDir, 'secret-key'), 'utf8').trim();
    expect(fileKey).toMatch(/^[0-9a-f]{64}$/);
    const fileId = dataKey(fileKey, 'file').id;
    expect(generated.get(SecretBox).current.id).toBe(fileId);
    expect((await storedKeys()).map((row) => row.key.split(':')[2])).toEqual([fileId, fileId]);

    const restarted = await boot({ SECRETS_KEY: '', DATA_DIR: dataDir });
    expect(restarted.get(ChannelRouter).get(channelId)?.key).toBe('sk-at-rest-0123456789');
    expect(restarted.get(OptionsService).get('EpayKey')).toBe('epay-legacy-plain');
  });
});
