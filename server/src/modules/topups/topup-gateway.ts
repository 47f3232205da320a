import { randomInt } from 'node:crypto';
import { DEFAULT_SERVER_ADDRESS } from '../options/option-defaults';
import { epaySign } from './epay-signature';
import { PAYMENT_METHODS, type PaymentMethod } from './topup.events';
import type { TopUpSettings } from './topup-pricing';

/** What the gateway pieces read from the live options (OptionsService satisfies it). */
export interface OptionReader {
  get(key: string): string;
  getBool(key: string): boolean;
  getNumber(key: string): number;
  getJson<T>(key: string, fallback: T): T;
}

export function topUpSettingsFromOptions(options: OptionReader): TopUpSettings {
  const ratios = options.getJson<unknown>('TopupGroupRatio', {});
  return {
    inCurrency: options.getBool('DisplayInCurrencyEnabled'),
    quotaPerUnit: options.getNumber('QuotaPerUnit'),
    price: options.getNumber('Price'),
    minTopUp: options.getNumber('MinTopUp'),
    groupRatio: ratios !== null && typeof ratios === 'object' && !Array.isArray(ratios) ? (ratios as Record<string, unknown>) : {},
  };
}

/** The merchant account at the Epay gateway: PayAddress, EpayId (pid) and EpayKey, all set. */
export interface EpayGateway {
  pid: string;
  key: string;
  /** PayAddress resolved against `/submit.php` (its path replaced, as go-epay does). */
  submitUrl: string;
}

/** The configured gateway, or null when PayAddress, EpayId or EpayKey is empty (online top-up is then off). */
export function epayGateway(options: OptionReader): EpayGateway | null {
  const payAddress = options.get('PayAddress');
  const pid = options.get('EpayId');
  const key = options.get('EpayKey');
  if (payAddress === '' || pid === '' || key === '') return null;
  try {
    return { pid, key, submitUrl: new URL('/submit.php', payAddress).toString() };
  } catch {
    return null;
  }
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** new-api's trade number: `USR<userId>NO<6 random alphanumerics><unix seconds>`. */
export function newTradeNo(userId: number, nowSeconds: number): string {
  let random = '';
  for (let i = 0; i < 6; i++) random += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return `USR${userId}NO${random}${nowSeconds}`;
}

/** A trade number this server could have issued (and so a safe stream name): checked before a callback reads a stream. */
export const isTradeNo = (value: string): boolean => /^USR\d{1,10}NO[A-Za-z0-9]{6}\d{1,12}$/.test(value);

export interface PurchaseForm {
  /** The form fields the console posts to `url`: the signed parameters plus `sign_type` and `sign`. */
  params: Record<string, string>;
  url: string;
}

/** The signed purchase form for an order (go-epay's Purchase): the browser posts it to the gateway's submit.php. */
export function purchaseForm(
  gateway: EpayGateway,
  order: { tradeNo: string; amount: number; money: string; paymentMethod: PaymentMethod },
  options: OptionReader,
): PurchaseForm {
  const serverAddress = options.get('ServerAddress') || DEFAULT_SERVER_ADDRESS;
  const callbackAddress = options.get('CustomCallbackAddress') || serverAddress;
  const params: Record<string, string> = {
    pid: gateway.pid,
    type: PAYMENT_METHODS[order.paymentMethod],
    out_trade_no: order.tradeNo,
    notify_url: `${callbackAddress}/api/user/epay/notify`,
    return_url: `${serverAddress}/log`,
    name: `TUC${order.amount}`,
    money: order.money,
    device: 'pc',
  };
  return { params: { ...params, sign_type: 'MD5', sign: epaySign(params, gateway.key) }, url: gateway.submitUrl };
}
