import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
// Explicit, so the harness also compiles where jest's globals are not declared (the server build).
import { afterAll, beforeAll } from '@jest/globals';
import { OpenAIUpstreamFake } from '#test/fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '#test/support/app';
import { dataSource, projected, register, setOptions } from '#test/e2e/users-support';
import { EVENT_STORE } from '../../ledger/event-store.port';
import { OptionsService } from '../../modules/options';
import { readRelayKey } from '../../modules/tokens';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import { PricingService } from '../../modules/pricing';
import { RelayError } from '../relay-error';
import type { RelayAuthenticator, RelayCaller, RelayChannelOutcome, RelayChannelRouter, RoutableChannel } from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import { UpstreamHttpClient } from '../upstream-client/upstream-http-client';
import { relayModeOf } from './relay-request';
import { parseConfig } from '../../config/app-config';
import { type RelayPipelineConfig, RelayPipelineService } from './relay-pipeline.service';
import { quotaConsumedEventId } from '#server/modules/accounts/index';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (response: Response): Promise<any> => response.json();

export function channel(id: number, baseUrl: string, priority: number, extra: Partial<RoutableChannel> = {}): RoutableChannel {
  return {
    id,
    type: 1,
    name: `ch${id}`,
    key: `key-${id}`,
    baseUrl,
    models: ['gpt-3.5-turbo'],
    modelMapping: {},
    groups: ['default'],
    priority,
    weight: 0,
    autoBan: false,
    other: '',
    config: {},
    headerOverride: {},
    paramOverride: {},
    openaiOrganization: null,
    statusCodeMapping: {},
    testModel: null,
    status: 1,
    ...extra,
  };
}

/** In-test router (contract 2): priority tiers highest first, `exclude` honoured when another channel exists. */
export class TestRouter implements RelayChannelRouter {
  constructor(public channels: RoutableChannel[]) {}
  select(group: string, model: string, options: { retry?: number; exclude?: ReadonlySet<number> } = {}) {
    const able = this.channels.filter((c) => c.groups.includes(group) && c.models.includes(model));
    if (able.length === 0) return null;
    const tiers = [...new Set(able.map((c) => c.priority))].sort((a, b) => b - a);
    const tier = tiers[Math.min(options.retry ?? 0, tiers.length - 1)];
    const inTier = able.filter((c) => c.priority === tier);
    const fresh = inTier.filter((c) => !options.exclude?.has(c.id));
    return (fresh.length ? fresh : inTier)[0];
  }
  get(id: number) {
    return this.channels.find((c) => c.id === id) ?? null;
  }
  modelsForGroup() {
    return ['gpt-3.5-turbo'];
  }
}

/** What a pipeline spec works with; the fields without `readonly` are set once the app is up (beforeAll). */
export interface PipelineHarness {
  target: TestApp;
  /** The test server in front of the pipeline (requests with `x-test-pipeline: timeouts` get 1 s timeouts). */
  url: string;
  caller: RelayCaller;
  router: TestRouter;
  settlement: RelaySettlementService;
  /** Channel 1 (priority 10) and channel 2 (priority 0). */
  readonly primary: OpenAIUpstreamFake;
  readonly backup: OpenAIUpstreamFake;
  /** Every outcome the pipeline reported, in order. */
  readonly outcomes: RelayChannelOutcome[];
  /** What the pipeline wrote to each client, write by write. */
  readonly clientWrites: string[][];
  chat(body: Record<string, unknown>, key?: string): Promise<Response>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  charges(requestId: string): Promise<any[]>;
  available(): Promise<number>;
}

/**
 * The pipeline with the real ledger, admission, options and upstream HTTP, and in-test implementations of the
 * token and channel contracts, behind a plain HTTP server; call inside a describe (it adds beforeAll and afterAll).
 */
export function pipelineHarness(): PipelineHarness {
  const harness: PipelineHarness = {
    target: null!,
    url: '',
    caller: null!,
    router: null!,
    settlement: null!,
    primary: new OpenAIUpstreamFake(),
    backup: new OpenAIUpstreamFake(),
    outcomes: [],
    clientWrites: [],
    chat: (body, key = 'sk-good') =>
      fetch(`${harness.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    charges: async (requestId) => {
      const rows: Array<{ event_id: string; stream_id: string; data: unknown }> = await dataSource(harness.target).query(
        `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' AND event_id = $1::uuid`,
        [quotaConsumedEventId(requestId)],
      );
      return rows.map((row) => ({ data: chargeOfRow(row) }));
    },
    available: async () => (await harness.target.app.get(QuotaAdmissionService, { strict: false }).available(harness.caller.user.id)).user,
  };
  let server: Server | undefined;
  const { primary, backup, outcomes, clientWrites } = harness;

  beforeAll(async () => {
    await Promise.all([primary.start(), backup.start()]);
    backup.reply = 'Answer from the backup.';
    const target = (harness.target = await createTestApp());
    await setOptions(target, { QuotaForNewUser: '100000', RetryTimes: '2' });
    const user = await register(target, 'pipeline');
    await projected(target);
    const caller: RelayCaller = (harness.caller = {
      token: { id: 0, name: 'test', key: 'k', group: '', unlimitedQuota: true, modelLimits: null },
      user: { id: user.id, username: 'pipeline', group: 'default', role: 1 },
      group: 'default',
      specificChannelId: null,
    });
    // Reads the key as the token authenticator does (token-key.ts): from the one header value it is given.
    const authenticator: RelayAuthenticator = {
      async authenticate(authorization) {
        const { key, channelPart } = readRelayKey({ authorization });
        if (key === 'good' && channelPart === undefined) return caller;
        if (key === 'good' && channelPart === '2') return { ...caller, specificChannelId: 2 };
        throw new RelayError(401, key === '' ? '未提供令牌' : '无效的令牌');
      },
    };
    const router = (harness.router = new TestRouter([channel(1, primary.baseUrl, 10), channel(2, backup.baseUrl, 0)]));
    const app = target.app;
    const admission = app.get(QuotaAdmissionService, { strict: false });
    const options = app.get(OptionsService, { strict: false });
    const settlement = (harness.settlement = new RelaySettlementService(app.get(EVENT_STORE, { strict: false }), admission));
    const build = (config: RelayPipelineConfig | null = null) =>
      new RelayPipelineService(
        authenticator,
        router,
        { report: (outcome) => outcomes.push(outcome) },
        admission,
        settlement,
        new PricingService(options),
        options,
        new UpstreamHttpClient(),
        config,
      );
    const pipeline = build();
    // The same pipeline with RELAY_TIMEOUT and STREAMING_TIMEOUT at 1 s, for the requests that carry
    // `x-test-pipeline: timeouts`.
    const timeoutPipeline = build(parseConfig({ RELAY_TIMEOUT: '1', STREAMING_TIMEOUT: '1' }));
    server = createServer((request, response) => {
      // What the pipeline writes to the client, write by write (the first-event test reads it).
      const written: string[] = [];
      clientWrites.push(written);
      const write = response.write.bind(response) as (chunk: unknown, ...rest: unknown[]) => boolean;
      response.write = ((chunk: unknown, ...rest: unknown[]) => {
        written.push(Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
        return write(chunk, ...rest);
      }) as typeof response.write;
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const [path, query = ''] = (request.url ?? '/').split('?');
        const controller = new AbortController();
        response.once('close', () => !response.writableFinished && controller.abort());
        void (request.headers['x-test-pipeline'] === 'timeouts' ? timeoutPipeline : pipeline).handle(
          {
            requestId: randomUUID(),
            path,
            query,
            headers: request.headers,
            rawBody: Buffer.concat(chunks),
            clientIp: '127.0.0.1',
            signal: controller.signal,
          },
          response,
          relayModeOf(path)!,
        );
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    harness.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await harness.target?.close();
    await Promise.all([primary.close(), backup.close()]);
  });

  return harness;
}
