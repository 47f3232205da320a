import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AggregateRepository } from '../../../../ledger/aggregate-repository';
import { deterministicEventId } from '../../../../ledger/event-ids';
import { channelStream } from '../../../../ledger/streams';
import { decide, initialChannelState } from '../../../channels/channel.decider';
import { evolveStored, toNewChannelEvent } from '../../../channels/channel-event-codec';
import { ChannelEntity } from '../../../channels/channel.entity';
import { ChannelNotFoundError } from '../../../channels/channel.errors';
import { UPSTREAM_REGISTRY } from '../../channel-health.tokens';
import type { UpstreamRegistry } from '../../../../upstreams/upstream-registry';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../../channel-health.config';
import { assertTestable, type TestableChannel, testSeconds } from '../../channel-test/build-channel-test';
import { runChannelTest } from '../../channel-test/run-channel-test';
import { ApplyChannelOutcomeCommand } from '../apply-channel-outcome/apply-channel-outcome.command';
import { TestChannelCommand, type TestChannelResult } from './test-channel.command';

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
    models: entity.models.split(',').map((model) => model.trim()).filter(Boolean),
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
  ) {}

  async execute({ input }: TestChannelCommand): Promise<TestChannelResult> {
    const entity = await this.channels.findOneBy({ id: input.channelId });
    if (!entity) throw new ChannelNotFoundError();
    assertTestable(entity.type);
    const run = await runChannelTest(toTestableChannel(entity), input.model, this.registry, this.config.CHANNEL_TEST_TIMEOUT_MS);

    const metadata = { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'channel_test' };
    const tested = await this.aggregates.loadAndAppend(
      channelStream(entity.id),
      evolveStored,
      initialChannelState,
      (state) =>
        decide({ type: 'RecordChannelTest', ok: run.ok, responseTimeMs: run.elapsedMs, model: run.model, error: run.ok ? null : run.message }, state).map(
          (event) => toNewChannelEvent(event, { id: deterministicEventId('channel-test', input.causeKey), metadata }),
        ),
      { retries: 5 },
    );
    const applied = await this.commandBus.execute(
      new ApplyChannelOutcomeCommand({
        outcome: run.outcome,
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
      position: Math.max(tested.position, applied.position),
    };
  }
}
