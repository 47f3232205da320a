import { z } from 'zod';
import { decodeBody, jsonInteger, jsonText } from '../users/user-input';
import { TOPUP_BAD_PARAMS, TOPUP_MONEY_TOO_LOW, TopUpRefusedError, topUpAboveMaximum, topUpBelowMinimum } from './topup.errors';

/** 10^12 quota ($2 000 000 at the default unit) in one order: beyond it is a typo, and balances stay safe integers. */
export const MAX_TOPUP_QUOTA = 1_000_000_000_000;

/** The options a quote depends on (read from the live options by the caller, so this stays pure). */
export interface TopUpSettings {
  /** DisplayInCurrencyEnabled: amounts are USD of quota; otherwise quota units. */
  inCurrency: boolean;
  quotaPerUnit: number;
  /** Price: money per USD of quota. */
  price: number;
  /** MinTopUp, in USD. */
  minTopUp: number;
  /** TopupGroupRatio: a money multiplier per user group. */
  groupRatio: Record<string, unknown>;
}

export interface TopUpQuote {
  /** As asked, in the request's unit. */
  amount: number;
  /** Quota units credited once paid. */
  quota: number;
  /** The payable money, unrounded (new-api's float math); the gateway is sent it with 2 decimals. */
  payMoney: number;
}

const topUpBody = z.object({ amount: jsonInteger, payment_method: jsonText, top_up_code: jsonText });

/** POST /api/user/amount and /pay bodies: `{amount:int, payment_method?, top_up_code?}` (top_up_code is ignored). */
export function decodeTopUpBody(body: unknown): { amount: number; paymentMethod: string } {
  let decoded: z.infer<typeof topUpBody>;
  try {
    decoded = decodeBody(topUpBody, body);
  } catch {
    throw new TopUpRefusedError(TOPUP_BAD_PARAMS);
  }
  return { amount: decoded.amount ?? 0, paymentMethod: decoded.payment_method ?? '' };
}

/** TopupGroupRatio[group], where a missing, non-numeric or zero ratio counts as 1 (new-api). */
export function topUpGroupRatio(settings: TopUpSettings, group: string): number {
  const ratio = Object.prototype.hasOwnProperty.call(settings.groupRatio, group) ? settings.groupRatio[group] : undefined;
  return typeof ratio === 'number' && Number.isFinite(ratio) && ratio > 0 ? ratio : 1;
}

/**
 * The quote of `amount` for a user of `group`: the minimum (MinTopUp USD, or MinTopUp × QuotaPerUnit quota units),
 * our maximum, then `payMoney = USD × Price × TopupGroupRatio[group]`. The money floor differs per route
 * (`/amount` refuses ≤ 0.01, `/pay` < 0.01), so it is the caller's.
 */
export function quoteTopUp(amount: number, group: string, settings: TopUpSettings): TopUpQuote {
  const unit = settings.quotaPerUnit > 0 ? settings.quotaPerUnit : 1;
  const min = settings.inCurrency ? settings.minTopUp : Math.trunc(settings.minTopUp * unit);
  if (amount < min) throw new TopUpRefusedError(topUpBelowMinimum(min));
  const max = settings.inCurrency ? Math.floor(MAX_TOPUP_QUOTA / unit) : MAX_TOPUP_QUOTA;
  if (amount > max) throw new TopUpRefusedError(topUpAboveMaximum(max));
  const usd = settings.inCurrency ? amount : amount / unit;
  const quota = settings.inCurrency ? Math.round(amount * unit) : amount;
  if (quota <= 0) throw new TopUpRefusedError(TOPUP_MONEY_TOO_LOW);
  return { amount, quota, payMoney: usd * settings.price * topUpGroupRatio(settings, group) };
}

/** The payable money as the gateway and the console see it: 2 decimals. */
export const formatMoney = (money: number): string => money.toFixed(2);
