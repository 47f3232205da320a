import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '#server/common/http/errors';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { accountStream, redemptionStream } from '#server/ledger/streams';
import { toNewAccountEvent } from '#server/modules/accounts/account-event-codec';
import { quotaDisplayFromOptions } from '#server/modules/accounts/quota-display';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { OptionsService } from '#server/modules/options/options.service';
import { decide, initialRedemptionState } from '../../redemption.decider';
import { RedeemFailedError } from '../../redemption.errors';
import type { RedemptionCodeRedeemed } from '../../redemption.events';
import { evolveStored, toNewRedemptionEvent, toRedemptionEvent } from '../../redemption-event-codec';
import { RedemptionReader } from '../../redemption.reader';
import { RedeemRedemptionCodeCommand, type RedeemRedemptionCodeInput } from './redeem-redemption-code.command';

/**
 * A lost race is decided again against the reloaded code (which then reads "used"); admin edits interleaving
 * with a redeem are the only other writers, so a few rounds always settle it.
 */
const REDEEM_RETRIES = 5;

interface Redemption {
  redemptionId: number;
  /** The RedemptionCodeRedeemed event (its id causes the credit). */
  eventId: string;
  data: RedemptionCodeRedeemed['data'];
}

/**
 * Redeeming is two appends: RedemptionCodeRedeemed on `redemption-{id}` (its expected revision picks the one
 * winner among any number of api processes), then the QuotaRedeemed credit on the redeemer's account, whose id
 * derives from the code so it can exist only once. A crash between the two leaves the code used and the credit
 * missing; every later attempt at the code re-appends the credit (a no-op when it is there), see docs/ledger.md.
 */
@CommandHandler(RedeemRedemptionCodeCommand)
export class RedeemRedemptionCodeHandler implements ICommandHandler<RedeemRedemptionCodeCommand> {
  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly reader: RedemptionReader,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: RedeemRedemptionCodeCommand): Promise<number> {
    const code = await this.reader.findByKey(input.key);
    if (!code) throw new RedeemFailedError('invalid');
    let redemption: Redemption;
    try {
      redemption = await this.redeem(code.id, input);
    } catch (error) {
      if (error instanceof RedeemFailedError) await this.redriveCredit(code.id, input.correlationId);
      throw error;
    }
    const position = await this.credit(redemption, input.correlationId);
    await this.readYourWrites.wait(position);
    return redemption.data.quota;
  }

  private async redeem(redemptionId: number, input: RedeemRedemptionCodeInput): Promise<Redemption> {
    const result = await this.aggregates
      .loadAndAppend(
        redemptionStream(redemptionId),
        evolveStored,
        initialRedemptionState,
        (state) =>
          decide(
            { type: 'RedeemRedemptionCode', userId: input.userId, username: input.username, redeemedTime: Math.floor(Date.now() / 1000) },
            state,
          ).map((event) =>
            // Random, never derived: a second redeemer's event must conflict on the revision, not pass as a duplicate.
            toNewRedemptionEvent(event, {
              id: randomUUID(),
              metadata: {
                correlationId: input.correlationId,
                actor: input.actor,
                clientIp: input.clientIp,
                reasonCode: 'redemption_redeemed',
              },
            }),
          ),
        { retries: REDEEM_RETRIES },
      )
      .catch((error: unknown) => {
        if (error instanceof WrongExpectedRevisionError) throw new ConflictError('兑换失败，兑换码繁忙，请稍后重试');
        throw error;
      });
    const event = result.events[0];
    return { redemptionId, eventId: event.id, data: event.data as RedemptionCodeRedeemed['data'] };
  }

  /** Appends the credit of a redemption; its derived id makes a second append of it a no-op. Returns its position. */
  private async credit(redemption: Redemption, correlationId: string): Promise<number> {
    const event = toNewAccountEvent(
      { type: 'QuotaRedeemed', data: { amount: redemption.data.quota, redemptionId: redemption.redemptionId } },
      {
        id: deterministicEventId('redemption', String(redemption.redemptionId)),
        metadata: {
          correlationId,
          causationId: redemption.eventId,
          actor: { type: 'system' },
          reasonCode: 'redemption_credit',
        },
        annotation: { username: redemption.data.username, quotaDisplay: quotaDisplayFromOptions(this.options) },
      },
    );
    const result = await this.store.appendToStream(accountStream(redemption.data.userId), [event], { expectedRevision: 'any' });
    return result.position;
  }

  /** A refused redeem of a code that WAS redeemed makes sure its credit exists (after a crash between the appends). */
  private async redriveCredit(redemptionId: number, correlationId: string): Promise<void> {
    const history = await this.store.readStream(redemptionStream(redemptionId));
    const redeemed = history.find((event) => event.type === 'RedemptionCodeRedeemed');
    if (!redeemed) return;
    const decoded = toRedemptionEvent(redeemed);
    if (decoded.type !== 'RedemptionCodeRedeemed') return;
    await this.credit({ redemptionId, eventId: redeemed.id, data: decoded.data }, correlationId);
  }
}
