import { CONFIG_DEFAULTS, parseConfig, parseRoles, parseStart } from './app-config';

describe('parseConfig', () => {
  it('gives every variable its default when the environment is empty, and takes blank values as unset', () => {
    expect(parseConfig({})).toEqual(CONFIG_DEFAULTS);
    expect(parseConfig({ PORT: '', HOST: '  ', SESSION_SECRET: '' })).toMatchObject({
      PORT: 3000,
      HOST: '0.0.0.0',
      SESSION_SECRET: undefined,
    });
  });

  it('parses integers, decimals, switches, choices and text', () => {
    expect(
      parseConfig({
        PORT: '8080',
        CHANNEL_FAILURE_RATE: '0.25',
        STREAMING_TIMEOUT: '1.5',
        RELAY_FAST_PATH: 'OFF',
        TRUST_PROXY: 'true',
        PG_PREPARED_STATEMENTS: 'no',
        IDLE_GC: '1',
        RELAY_CHARGE_DURABILITY: 'Ledger',
        GEMINI_SAFETY_SETTING: ' BLOCK_ONLY_HIGH ',
        SETTLEMENT_LINGER_MS: '0',
        PROJECTOR_LINGER_MS: '50',
      }),
    ).toMatchObject({
      PORT: 8080,
      CHANNEL_FAILURE_RATE: 0.25,
      STREAMING_TIMEOUT: 1.5,
      RELAY_FAST_PATH: false,
      TRUST_PROXY: true,
      PG_PREPARED_STATEMENTS: false,
      IDLE_GC: true,
      RELAY_CHARGE_DURABILITY: 'ledger',
      GEMINI_SAFETY_SETTING: 'BLOCK_ONLY_HIGH',
      SETTLEMENT_LINGER_MS: 0,
      PROJECTOR_LINGER_MS: 50,
    });
    expect(parseConfig({}).SETTLEMENT_LINGER_MS).toBeUndefined();
    expect(parseConfig({}).PROJECTOR_LINGER_MS).toBe(10);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer 0..65535 (got "abc")'],
    [{ PORT: '70000' }, 'PORT must be an integer 0..65535 (got "70000")'],
    [{ PORT: '80.5' }, 'PORT must be an integer 0..65535 (got "80.5")'],
    [{ RELAY_CHARGE_DURABILITY: 'x' }, 'RELAY_CHARGE_DURABILITY must be one of journal, ledger (got "x")'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ RELAY_FAST_PATH: 'maybe' }, 'RELAY_FAST_PATH must be on or off (or true/false, 1/0, yes/no) (got "maybe")'],
    [{ RELAY_LEASE_MS: '500' }, 'RELAY_LEASE_MS must be an integer >= 1000 (got "500")'],
    [{ CHANNEL_FAILURE_RATE: '1.5' }, 'CHANNEL_FAILURE_RATE must be a number 0..1 (got "1.5")'],
    [{ IDLE_GC_MIN_GROWTH_MB: '0' }, 'IDLE_GC_MIN_GROWTH_MB must be a number > 0 (got "0")'],
    [{ SETTLEMENT_LINGER_MS: '-1' }, 'SETTLEMENT_LINGER_MS must be an integer >= 0 (got "-1")'],
    [{ PROJECTOR_LINGER_MS: '-5' }, 'PROJECTOR_LINGER_MS must be an integer >= 0 (got "-5")'],
    [
      { LEDGER_ARCHIVE_DIR: 'gs://bucket' },
      'LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder) (got "gs://bucket")',
    ],
    [
      { LEDGER_ARCHIVE_DIR: 'file:///mnt/archive' },
      'LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder) (got "file:///mnt/archive")',
    ],
    [
      { LEDGER_ARCHIVE_DIR: 's3://' },
      'LEDGER_ARCHIVE_DIR must be a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder) (got "s3://")',
    ],
    [{ LEDGER_ARCHIVE_S3_ENDPOINT: 'minio:9000' }, 'LEDGER_ARCHIVE_S3_ENDPOINT must be an http:// or https:// URL (got "minio:9000")'],
    [
      { LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE: 'maybe' },
      'LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE must be on or off (or true/false, 1/0, yes/no) (got "maybe")',
    ],
    [
      { LEDGER_ARCHIVE_S3_ACCESS_KEY_ID: 'AKIA' },
      'LEDGER_ARCHIVE_S3_ACCESS_KEY_ID and LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY go together: set both, or neither for the AWS SDK chain',
    ],
  ])('refuses %j at start: %s', (env, message) => {
    expect(() => parseConfig(env)).toThrow(`Invalid configuration: ${message}`);
  });

  it('takes a folder or an s3:// URL for LEDGER_ARCHIVE_DIR, a mounted bucket or a relative path included', () => {
    expect(parseConfig({ LEDGER_ARCHIVE_DIR: '/mnt/s3-bucket/tollgate' }).LEDGER_ARCHIVE_DIR).toBe('/mnt/s3-bucket/tollgate');
    expect(parseConfig({ LEDGER_ARCHIVE_DIR: 's3://bucket/prefix' }).LEDGER_ARCHIVE_DIR).toBe('s3://bucket/prefix');
    const s3 = parseConfig({
      LEDGER_ARCHIVE_DIR: 's3://bucket',
      LEDGER_ARCHIVE_S3_ENDPOINT: 'http://127.0.0.1:9000',
      LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE: 'off',
      LEDGER_ARCHIVE_S3_ACCESS_KEY_ID: 'key',
      LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY: 'secret',
    });
    expect([s3.LEDGER_ARCHIVE_S3_ENDPOINT, s3.LEDGER_ARCHIVE_S3_REGION, s3.LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE]).toEqual([
      'http://127.0.0.1:9000',
      'us-east-1',
      false,
    ]);
    expect(parseConfig({ LEDGER_ARCHIVE_DIR: 'data/archive' }).LEDGER_ARCHIVE_DIR).toBe('data/archive');
    expect(parseConfig({}).LEDGER_ARCHIVE_DIR).toBeUndefined();
  });

  it('names every bad variable in one error', () => {
    expect(() => parseConfig({ PORT: 'abc', BACKGROUND_NICE: 'high' })).toThrow(
      'Invalid configuration: PORT must be an integer 0..65535 (got "abc"); BACKGROUND_NICE must be an integer 0..19 (got "high")',
    );
  });
});

describe('parseRoles', () => {
  it('takes --role, else ROLE, else all', () => {
    expect(parseRoles(['node', 'main.js', '--role', 'api'])).toEqual(['api']);
    expect(parseRoles(['node', 'main.js', '--role=worker,projector'], 'api')).toEqual(['worker', 'projector']);
    expect(parseRoles(['node', 'main.js'], 'projector')).toEqual(['projector']);
    expect(parseRoles(['node', 'main.js'])).toEqual(['api', 'worker', 'projector']);
    expect(() => parseRoles(['node', 'main.js'], 'web')).toThrow('Unknown --role "web"');
  });
});

describe('parseStart', () => {
  it('is the supervisor without --role and with ROLE at its default, else the roles to run in this process', () => {
    expect(CONFIG_DEFAULTS.ROLE).toBe('supervisor');
    expect(parseStart(['node', 'main.js'], CONFIG_DEFAULTS.ROLE)).toBe('supervisor');
    expect(parseStart(['node', 'main.js', '--role', 'supervisor'], 'all')).toBe('supervisor');
    expect(parseStart(['node', 'main.js'], 'all')).toEqual(['api', 'worker', 'projector']);
    expect(parseStart(['node', 'main.js', '--role=api'], 'supervisor')).toEqual(['api']);
    expect(() => parseStart(['node', 'main.js', '--role', 'web'])).toThrow(
      'Unknown --role "web": use api, worker, projector, all or supervisor',
    );
  });

  it('refuses a bad SHUTDOWN_TIMEOUT_MS or REDIS_PORT, naming it', () => {
    expect(() => parseConfig({ SHUTDOWN_TIMEOUT_MS: '10' })).toThrow('SHUTDOWN_TIMEOUT_MS must be an integer >= 1000 (got "10")');
    expect(() => parseConfig({ REDIS_PORT: '70000' })).toThrow('REDIS_PORT must be an integer 1..65535 (got "70000")');
  });
});
