import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { DataSource } from 'typeorm';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { ChannelWrites } from '#server/modules/channels/channel-writes';
import { applyDecisionToRouting } from '../../decider/apply-decision-to-routing';
import { deterministicEventId } from '#server/ledger/event-ids';
import { channelStream } from '#server/ledger/streams';
import { type ChannelCommand, decide, initialChannelState } from '#server/modules/channels/channel.decider';
import { evolveStored, toNewChannelEvent } from '#server/modules/channels/channel-event-codec';
import { ChannelEntity } from '#server/modules/channels/channel.entity';
import { OptionsService } from '#server/modules/options/options.service';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../../config/channel-health.config';
import { classifyOutcome, decideOnOutcome, type HealthDecision } from '../../decider/channel-health.decider';
import { HealthNotifier } from '../../notify/health-notifier';
import { healthPolicy } from '../../decider/health-policy';
import { OutcomeWindowStore } from '../../outcome/outcome-window.store';
import { ApplyChannelOutcomeCommand, type ApplyChannelOutcomeResult } from './apply-channel-outcome.command';

/** The channel command a health decision asks for (the channel decider re-checks the status it applies to). */
export function toChannelCommand(decision: HealthDecision): ChannelCommand | null {
  if (decision.kind === 'none') return null;
  const data = { reasonCode: decision.reasonCode, message: decision.reason, evidence: { ...decision.evidence } };
  return decision.kind === 'disable' ? { type: 'AutoDisableChannel', ...data } : { type: 'AutoEnableChannel', ...data };
}

@CommandHandler(ApplyChannelOutcomeCommand)
export class ApplyChannelOutcomeHandler implements ICommandHandler<ApplyChannelOutcomeCommand> {
  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    private readonly aggregates: AggregateRepository,
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
    private readonly window: OutcomeWindowStore,
    private readonly options: OptionsService,
    private readonly notifier: HealthNotifier,
    @Inject(CHANNEL_HEALTH_CONFIG) private readonly config: ChannelHealthConfig,
  ) {}

  async execute({ input }: ApplyChannelOutcomeCommand): Promise<ApplyChannelOutcomeResult> {
    const { outcome } = input;
    const channel = await this.channels.findOneBy({ id: outcome.channelId });
    if (!channel) return { decision: { kind: 'none', why: 'channel not found' }, position: 0 };
    const policy = healthPolicy(this.options, this.config);
    const counts = await this.window.record(channel.id, classifyOutcome(outcome, channel.type), input.observedAtMs, policy.windowSeconds, {
      count: input.count,
      precedingSuccesses: input.precedingSuccesses,
    });

    let decision: HealthDecision = { kind: 'none', why: 'not decided' };
    const result = await this.aggregates.loadAndAppend(
      channelStream(channel.id),
      evolveStored,
      initialChannelState,
      (state) => {
        decision = decideOnOutcome(outcome, { status: state.status, autoBan: channel.autoBan === 1, type: channel.type }, counts, policy);
        const command = toChannelCommand(decision);
        if (!command) return [];
        return decide(command, state).map((event) =>
          toNewChannelEvent(event, {
            id: deterministicEventId('channel-health', `${input.causeKey}:${event.type}`),
            metadata: {
              correlationId: input.correlationId,
              actor: input.actor,
              reasonCode:
                command.type === 'AutoDisableChannel' || command.type === 'AutoEnableChannel' ? command.reasonCode : 'channel_health',
            },
          }),
        );
      },
      { retries: 5 },
    );
    // Assigned inside the decide callback, which TypeScript's flow analysis does not follow.
    const taken = decision as HealthDecision;
    if (result.events.length === 0) {
      return { decision: taken.kind === 'none' ? taken : { kind: 'none', why: 'status already changed' }, position: result.position };
    }
    await applyDecisionToRouting(this.dataSource, this.writes, channel.id, taken, result);
    if (taken.kind === 'enable') await this.window.reset(channel.id);
    this.notifier.notify(channel, taken);
    return { decision: taken, position: result.position };
  }
}
