import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { DataSource } from 'typeorm';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { ChannelWrites } from '#server/modules/channels/channel-writes';
import { applyDecisionToRouting } from '../../decider/apply-decision-to-routing';
import { deterministicEventId } from '#server/ledger/event-ids';
import type { NewEvent } from '#server/ledger/event-store.port';
import { channelStream } from '#server/ledger/streams';
import { decide, initialChannelState } from '#server/modules/channels/channel.decider';
import { evolveStored, toNewChannelEvent } from '#server/modules/channels/channel-event-codec';
import { ChannelEntity } from '#server/modules/channels/channel.entity';
import { redactKey } from '#server/common/crypto/redact';
import { openChannelKey } from '#server/modules/channels/channel-keys';
import { SecretBox } from '#server/common/crypto/secret-box';
import { ChannelNotFoundError } from '#server/modules/channels/channel.errors';
import { fetchChannelBalance } from '../../balance/fetch-channel-balance';
import { getBalanceJson } from '../../balance/get-balance-json';
import { CHANNEL_HEALTH_CONFIG, type ChannelHealthConfig } from '../../config/channel-health.config';
import { decideOnBalance, type HealthDecision } from '../../decider/channel-health.decider';
import { HealthNotifier } from '../../notify/health-notifier';
import { toChannelCommand } from '../apply-channel-outcome/apply-channel-outcome.handler';
import { UpdateChannelBalanceCommand, type UpdateChannelBalanceResult } from './update-channel-balance.command';

@CommandHandler(UpdateChannelBalanceCommand)
export class UpdateChannelBalanceHandler implements ICommandHandler<UpdateChannelBalanceCommand> {
  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    private readonly aggregates: AggregateRepository,
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
    private readonly notifier: HealthNotifier,
    @Inject(CHANNEL_HEALTH_CONFIG) private readonly config: ChannelHealthConfig,
    private readonly box: SecretBox,
  ) {}

  async execute({ input }: UpdateChannelBalanceCommand): Promise<UpdateChannelBalanceResult> {
    const channel = await this.channels.findOneBy({ id: input.channelId });
    if (!channel) throw new ChannelNotFoundError();
    const key = openChannelKey(this.box, channel.key);
    const balance = await fetchChannelBalance(
      { type: channel.type, key, baseUrl: channel.baseUrl },
      getBalanceJson(this.config.CHANNEL_TEST_TIMEOUT_MS),
      new Date(),
    ).catch((error: unknown) => {
      // The upstream's message is answered and logged: without the key, should the upstream repeat it.
      if (error instanceof Error) error.message = redactKey(error.message, key);
      throw error;
    });
    const metadata = { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'balance_update' };
    let decision: HealthDecision = { kind: 'none', why: 'single refresh' };
    const result = await this.aggregates.loadAndAppend(
      channelStream(channel.id),
      evolveStored,
      initialChannelState,
      (state) => {
        const events: NewEvent[] = decide({ type: 'RecordChannelBalance', balance }, state).map((event) =>
          toNewChannelEvent(event, { id: deterministicEventId('channel-balance', input.causeKey), metadata }),
        );
        if (input.disableWhenEmpty) {
          decision = decideOnBalance(balance, { status: state.status, autoBan: channel.autoBan === 1, type: channel.type });
          const command = toChannelCommand(decision);
          if (command) {
            for (const event of decide(command, state)) {
              events.push(
                toNewChannelEvent(event, {
                  id: deterministicEventId('channel-health', `balance:${input.causeKey}:${event.type}`),
                  metadata: { ...metadata, reasonCode: decision.kind === 'none' ? 'balance_update' : decision.reasonCode },
                }),
              );
            }
          }
        }
        return events;
      },
      { retries: 5 },
    );
    await applyDecisionToRouting(this.dataSource, this.writes, channel.id, decision as HealthDecision, result);
    if (decision.kind !== 'none') this.notifier.notify(channel, decision);
    return { balance, position: result.position };
  }
}
