import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { channelStream } from '#server/ledger/streams';
import { PricingService, pricingFor } from '#server/modules/pricing/index';
import { type ChannelTestLoggedData, LOGS_STREAM, LogsEventType } from '#server/modules/logs/logs.events';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity } from '#server/modules/users/user.entity';
import { decide, initialChannelState } from '#server/modules/channels/channel.decider';
import { evolveStored, toNewChannelEvent } from '#server/modules/channels/channel-event-codec';
import { ChannelEntity } from '#server/modules/channels/channel.entity';
import { openChannelKey } from '#server/modules/channels/channel-keys';
import { SecretBox } from '#server/common/crypto/secret-box';
import { ChannelNotFoundError } from '#server/modules/channels/channel.errors';
import { UPSTREAM_REGISTRY } from '../../config/channel-health.tokens';
import type { UpstreamRegistry } from '#server/upstreams/upstream-registry';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../../config/channel-health.config';
import { assertTestable, channelTestQuota, type TestableChannel, testSeconds } from '../../channel-test/build-channel-test';
import { type ChannelTestRun, runChannelTest } from '../../channel-test/run-channel-test';
import { OutcomeWindowStore } from '../../outcome/outcome-window.store';
import { ApplyChannelOutcomeCommand } from '../apply-channel-outcome/apply-channel-outcome.command';
import { TestChannelCommand, type TestChannelResult } from './test-channel.command';

/** new-api logs every channel test as user 1 (the first root). */
const TEST_LOG_USER_ID = 1;

function parseMapping(text: string): Record<string, string> {
  if (!text.trim()) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

export function toTestableChannel(entity: ChannelEntity): TestableChannel {
  return {
    id: entity.id,
    type: entity.type,
    key: entity.key,
    baseUrl: entity.baseUrl || null,
    other: entity.other || null,
    openaiOrganization: entity.openaiOrganization,
    models: entity.models
      .split(',')
      .map((model) => model.trim())
      .filter(Boolean),
    testModel: entity.testModel,
    modelMapping: parseMapping(entity.modelMapping),
  };
}

@CommandHandler(TestChannelCommand)
export class TestChannelHandler implements ICommandHandler<TestChannelCommand> {
  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    private readonly aggregates: AggregateRepository,
    private readonly commandBus: CommandBus,
    @Inject(UPSTREAM_REGISTRY) private readonly registry: UpstreamRegistry,
    @Inject(CHANNEL_HEALTH_CONFIG) private readonly config: ChannelHealthConfig,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly pricing: PricingService,
    private readonly options: OptionsService,
    private readonly box: SecretBox,
    private readonly window: OutcomeWindowStore,
  ) {}

  async execute({ input }: TestChannelCommand): Promise<TestChannelResult> {
    const entity = await this.channels.findOneBy({ id: input.channelId });
    if (!entity) throw new ChannelNotFoundError();
    assertTestable(entity.type);
    // Its outcome is counted in Redis (ApplyChannelOutcome): with Redis away, 503 before anything is tested or recorded
    // (the request used to wait for as long as Redis was gone, with the test already in the ledger).
    this.window.ensureReachable();
    const run = await runChannelTest(
      toTestableChannel({ ...entity, key: openChannelKey(this.box, entity.key) }),
      input.model,
      this.registry,
      this.config.CHANNEL_TEST_TIMEOUT_MS,
    );

    const metadata = { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'channel_test' };
    const tested = await this.aggregates.loadAndAppend(
      channelStream(entity.id),
      evolveStored,
      initialChannelState,
      (state) =>
        decide(
          { type: 'RecordChannelTest', ok: run.ok, responseTimeMs: run.elapsedMs, model: run.model, error: run.ok ? null : run.message },
          state,
        ).map((event) => toNewChannelEvent(event, { id: deterministicEventId('channel-test', input.causeKey), metadata })),
      { retries: 5 },
    );
    const logged = run.ok ? await this.logTest(entity.id, run, input, metadata) : 0;
    const applied = await this.commandBus.execute(
      new ApplyChannelOutcomeCommand({
        // Without the response time the rules have nothing to judge slowness by (slowTest in the decider).
        outcome: input.single ? { ...run.outcome, responseTimeMs: undefined } : run.outcome,
        observedAtMs: Date.now(),
        causeKey: `test:${input.causeKey}`,
        correlationId: input.correlationId,
        actor: input.actor,
      }),
    );
    return {
      ok: run.ok,
      message: run.message,
      time: testSeconds(run.elapsedMs),
      responseTimeMs: run.elapsedMs,
      decision: applied.decision.kind,
      position: Math.max(tested.position, applied.position, logged),
    };
  }

  /**
   * new-api's consume log of a passed test (user 1, "模型测试", the would-be quota at group ratio 1, nothing
   * deducted), as a ChannelTestLogged on `logs` that the logs projection turns into the row; skipped like every
   * consume row when LogConsumeEnabled is off. The id derives from the test's cause, so a retried job logs once.
   * Answers the event's position.
   */
  private async logTest(
    channelId: number,
    run: ChannelTestRun,
    input: TestChannelCommand['input'],
    metadata: MetadataInput,
  ): Promise<number> {
    if (!this.options.getBool('LogConsumeEnabled')) return 0;
    const tables = this.pricing.tables();
    const pricing = pricingFor(tables, run.model, 'default');
    const usage = run.usage ?? { promptTokens: 0, completionTokens: 0 };
    const user = await this.users.findOne({ where: { id: TEST_LOG_USER_ID }, select: { id: true, username: true } });
    const data: ChannelTestLoggedData = {
      userId: TEST_LOG_USER_ID,
      username: user?.username ?? '',
      channelId,
      modelName: run.model,
      upstreamModel: run.upstreamModel,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      quota: channelTestQuota(pricing, usage, tables.quotaPerUnit),
      modelRatio: pricing.modelRatio,
      completionRatio: pricing.completionRatio,
      modelPrice: pricing.modelPrice,
      useTimeSeconds: Math.trunc(run.elapsedMs / 1000),
      createdAt: Math.floor(Date.now() / 1000),
    };
    const event = newEvent(LogsEventType.ChannelTestLogged, data, {
      id: deterministicEventId('channel-test-log', input.causeKey),
      metadata,
    });
    return (await this.store.appendToStream(LOGS_STREAM, [event], { expectedRevision: 'any' })).position;
  }
}
