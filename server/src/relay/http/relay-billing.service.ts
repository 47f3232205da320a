import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { AccountBalanceEntity } from '#projections/read-models/account-balances/account-balance.entity';
import { OptionsService } from '../../modules/options';
import { TokenReader } from '../../modules/tokens';
import { relayAuthorization } from '../pipeline/relay-authorization';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { RELAY_AUTHENTICATOR, type RelayAuthenticator, type RelayCaller } from '../relay-ports';
import { sendJson, sendRelayFailure } from './relay-models.service';

/** What an unlimited token reports as its limit, the figure new-api reports. */
const UNLIMITED_AMOUNT = 100000000;

interface Figures {
  remain: number;
  used: number;
  unlimited: boolean;
  expiredTime: number;
}

/**
 * The OpenAI-legacy billing emulation new-api offers: `GET /dashboard/billing/subscription` and
 * `/usage`, also under `/v1`, token-authenticated (TokenAuth only, so no IP allow list or token-group check), for
 * clients that show a key's balance through OpenAI's old dashboard API.
 *
 * - subscription: `{object:"billing_subscription", has_payment_method:true, soft_limit_usd, hard_limit_usd,
 *   system_hard_limit_usd, access_until}`, each limit (remain + used) ÷ QuotaPerUnit (the raw quota when
 *   DisplayInCurrencyEnabled is off), 100000000 for an unlimited token; access_until the token's expiry, 0 for never.
 * - usage: `{object:"list", total_usage}`, used ÷ QuotaPerUnit × 100 (cents, as OpenAI's API counted them).
 *
 * The figures are the token's (DisplayTokenStatEnabled, the default) or the user's, from the balance read models the
 * console shows (TokenReader's token_balances, account_balances: folds of the ledger). Not the hot path.
 */
@Injectable()
export class RelayBillingService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    private readonly options: OptionsService,
    private readonly tokens: TokenReader,
    @InjectRepository(AccountBalanceEntity) private readonly balances: Repository<AccountBalanceEntity>,
  ) {}

  async subscription(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    await this.answer(request, response, async (caller) => {
      const figures = await this.figures(caller);
      const amount = figures.unlimited ? UNLIMITED_AMOUNT : this.inDisplayUnits(figures.remain + figures.used);
      return {
        object: 'billing_subscription',
        has_payment_method: true,
        soft_limit_usd: amount,
        hard_limit_usd: amount,
        system_hard_limit_usd: amount,
        access_until: figures.expiredTime > 0 ? figures.expiredTime : 0,
      };
    });
  }

  async usage(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    await this.answer(request, response, async (caller) => {
      const figures = await this.figures(caller);
      return { object: 'list', total_usage: this.inDisplayUnits(figures.used) * 100 };
    });
  }

  private inDisplayUnits(quota: number): number {
    if (!this.options.getBool('DisplayInCurrencyEnabled')) return quota;
    const perUnit = this.options.getNumber('QuotaPerUnit');
    return perUnit > 0 ? quota / perUnit : quota;
  }

  /** The token's figures and expiry; with DisplayTokenStatEnabled off, the user's quota and used quota instead. */
  private async figures(caller: RelayCaller): Promise<Figures> {
    const token = await this.tokens.findOwned(caller.user.id, caller.token.id);
    const expiredTime = token?.expiredTime ?? 0;
    if (this.options.getBool('DisplayTokenStatEnabled')) {
      return { remain: token?.remainQuota ?? 0, used: token?.usedQuota ?? 0, unlimited: caller.token.unlimitedQuota, expiredTime };
    }
    const account = await this.balances.findOneBy({ userId: caller.user.id });
    return { remain: account?.quota ?? 0, used: account?.usedQuota ?? 0, unlimited: false, expiredTime };
  }

  private async answer(
    request: RelayHttpRequest,
    response: ServerResponse,
    body: (caller: RelayCaller) => Promise<unknown>,
  ): Promise<void> {
    try {
      const caller = await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, {
        tokenAuthOnly: true,
      });
      sendJson(response, 200, request.requestId, await body(caller));
    } catch (error) {
      sendRelayFailure(request, response, error);
    }
  }
}
