import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OptionsService } from '../../modules/options/options.service';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { relayAuthorization } from '../pipeline/relay-authorization';
import { RelayError } from '../relay-error';
import { RELAY_AUTHENTICATOR, type RelayAuthenticator, type RelayCaller } from '../relay-ports';
import { sendJson } from './relay-models.service';

/** What an unlimited token reports as its limit (reference §8.2). */
const UNLIMITED_AMOUNT = 100000000;

interface Figures {
  remain: number;
  used: number;
  unlimited: boolean;
  expiredTime: number;
}

/**
 * The OpenAI-legacy billing emulation (relay-behaviour.md §1 and §8.2): `GET /dashboard/billing/subscription` and
 * `/usage`, also under `/v1`, token-authenticated (TokenAuth only, so no IP allow list or token-group check), for
 * clients that show a key's balance through OpenAI's old dashboard API.
 *
 * - subscription: `{object:"billing_subscription", has_payment_method:true, soft_limit_usd, hard_limit_usd,
 *   system_hard_limit_usd, access_until}`, each limit (remain + used) ÷ QuotaPerUnit (the raw quota when
 *   DisplayInCurrencyEnabled is off), 100000000 for an unlimited token; access_until the token's expiry, 0 for never.
 * - usage: `{object:"list", total_usage}`, used ÷ QuotaPerUnit × 100 (cents, as OpenAI's API counted them).
 *
 * The figures are the token's (DisplayTokenStatEnabled, the default) or the user's, from the balance read models the
 * console shows (token_balances, account_balances: folds of the ledger). Not the hot path: one query per call.
 */
@Injectable()
export class RelayBillingService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    private readonly options: OptionsService,
    private readonly dataSource: DataSource,
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
    const rows: Array<{ expired_time: string; unlimited_quota: boolean; remain_quota: string | null; used_quota: string | null }> = await this.dataSource.query(
      `SELECT t.expired_time, t.unlimited_quota, b.remain_quota, b.used_quota
         FROM tokens t LEFT JOIN token_balances b ON b.token_id = t.id
        WHERE t.id = $1`,
      [caller.token.id],
    );
    const token = rows[0];
    const expiredTime = token ? Number(token.expired_time) : 0;
    if (this.options.getBool('DisplayTokenStatEnabled')) {
      return {
        remain: Number(token?.remain_quota ?? 0),
        used: Number(token?.used_quota ?? 0),
        unlimited: caller.token.unlimitedQuota,
        expiredTime,
      };
    }
    const accounts: Array<{ quota: string; used_quota: string }> = await this.dataSource.query(
      'SELECT quota, used_quota FROM account_balances WHERE user_id = $1',
      [caller.user.id],
    );
    return { remain: Number(accounts[0]?.quota ?? 0), used: Number(accounts[0]?.used_quota ?? 0), unlimited: false, expiredTime };
  }

  private async answer(request: RelayHttpRequest, response: ServerResponse, body: (caller: RelayCaller) => Promise<unknown>): Promise<void> {
    try {
      const caller = await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, { tokenAuthOnly: true });
      sendJson(response, 200, request.requestId, await body(caller));
    } catch (error) {
      const relayError = error instanceof RelayError ? error : new RelayError(500, String((error as Error)?.message ?? error), 'new_api_error', { shape: 'relay' });
      sendJson(response, relayError.status, request.requestId, relayError.toBody(request.requestId));
    }
  }
}
