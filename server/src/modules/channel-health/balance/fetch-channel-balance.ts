import { DomainError } from '#server/common/http/errors';

/**
 * Balance endpoints per channel type, as new-api queries them, in USD. Pure apart from the injected `getJson`,
 * so each type's URLs, headers and arithmetic are specified without a network.
 *
 * A channel's base URL, when set, replaces the type's default host (new-api does this for OpenAI and
 * Custom; Tollgate does it for every type so an installation behind a proxy, and the tests' fakes, work alike).
 */

export interface BalanceChannel {
  type: number;
  key: string;
  /** '' or null: the type's default host. */
  baseUrl: string | null;
}

export interface BalanceHttpAnswer {
  status: number;
  body: unknown;
}

export type GetJson = (url: string, headers: Record<string, string>) => Promise<BalanceHttpAnswer>;

export class BalanceNotSupportedError extends DomainError {
  constructor() {
    super('尚未实现', 'balance_not_supported');
  }
}

export class BalanceQueryFailedError extends DomainError {
  constructor(message: string) {
    super(message, 'balance_query_failed');
  }
}

const DEFAULT_HOSTS: Record<number, string> = {
  1: 'https://api.openai.com',
  10: 'https://aiproxy.io',
  12: 'https://api.api2gpt.com',
  13: 'https://api.aigc2d.com',
  40: 'https://api.siliconflow.cn',
};

/** Channel types with a balance endpoint: OpenAI, Custom, AIProxy, API2GPT, AIGC2D, SiliconCloud. */
export const BALANCE_CHANNEL_TYPES: ReadonlySet<number> = new Set([1, 8, 10, 12, 13, 40]);

function host(channel: BalanceChannel): string {
  const base = (channel.baseUrl ?? '').trim() || DEFAULT_HOSTS[channel.type] || '';
  if (!base) throw new BalanceQueryFailedError('渠道未设置 Base URL');
  return base.replace(/\/+$/, '');
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/** `YYYY-MM-DD` in local time, as new-api formats its dates. */
export function formatDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

async function getObject(getJson: GetJson, url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const answer = await getJson(url, headers);
  const body = answer.body;
  if (answer.status !== 200) {
    const message = errorMessage(body);
    throw new BalanceQueryFailedError(message ? `status code: ${answer.status}, ${message}` : `status code: ${answer.status}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BalanceQueryFailedError('invalid balance response');
  return body as Record<string, unknown>;
}

function errorMessage(body: unknown): string {
  if (!body || typeof body !== 'object') return typeof body === 'string' ? body.slice(0, 200) : '';
  const error = (body as { error?: unknown; message?: unknown }).error;
  if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string')
    return (error as { message: string }).message;
  const message = (body as { message?: unknown }).message;
  return typeof message === 'string' ? message : '';
}

function numberField(value: unknown, name: string): number {
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new BalanceQueryFailedError(`invalid balance response: ${name}`);
  return number;
}

/** OpenAI dashboard billing: hard limit minus this period's usage (cents). */
async function openAIDashboard(channel: BalanceChannel, getJson: GetJson, now: Date): Promise<number> {
  const base = host(channel);
  const subscription = await getObject(getJson, `${base}/v1/dashboard/billing/subscription`, bearer(channel.key));
  const hardLimit = numberField(subscription.hard_limit_usd, 'hard_limit_usd');
  // Without a payment method the grant spans the last 100 days, else the usage of this month counts.
  const start = subscription.has_payment_method
    ? `${now.getFullYear()}-${pad(now.getMonth() + 1)}-01`
    : formatDate(new Date(now.getTime() - 100 * 24 * 3600 * 1000));
  const usage = await getObject(
    getJson,
    `${base}/v1/dashboard/billing/usage?start_date=${start}&end_date=${formatDate(now)}`,
    bearer(channel.key),
  );
  return hardLimit - numberField(usage.total_usage, 'total_usage') / 100;
}

async function aiProxy(channel: BalanceChannel, getJson: GetJson): Promise<number> {
  const body = await getObject(getJson, `${host(channel)}/api/report/getUserOverview`, { 'Api-Key': channel.key });
  if (body.success !== true)
    throw new BalanceQueryFailedError(`code: ${String(body.errorCode ?? body.code ?? '')}, message: ${String(body.message ?? '')}`);
  return numberField((body.data as Record<string, unknown> | undefined)?.totalPoints, 'data.totalPoints');
}

async function creditGrants(channel: BalanceChannel, getJson: GetJson, field: 'total_remaining' | 'total_available'): Promise<number> {
  const body = await getObject(getJson, `${host(channel)}/dashboard/billing/credit_grants`, bearer(channel.key));
  return numberField(body[field], field);
}

async function siliconFlow(channel: BalanceChannel, getJson: GetJson): Promise<number> {
  const body = await getObject(getJson, `${host(channel)}/v1/user/info`, bearer(channel.key));
  if (body.code !== undefined && body.code !== 20000)
    throw new BalanceQueryFailedError(`code: ${String(body.code)}, message: ${String(body.message ?? '')}`);
  return numberField((body.data as Record<string, unknown> | undefined)?.totalBalance, 'data.totalBalance');
}

/** The channel's balance in USD; throws BalanceNotSupportedError (`尚未实现`) for types without an endpoint. */
export async function fetchChannelBalance(channel: BalanceChannel, getJson: GetJson, now: Date): Promise<number> {
  switch (channel.type) {
    case 1:
    case 8:
      return openAIDashboard(channel, getJson, now);
    case 10:
      return aiProxy(channel, getJson);
    case 12:
      return creditGrants(channel, getJson, 'total_remaining');
    case 13:
      return creditGrants(channel, getJson, 'total_available');
    case 40:
      return siliconFlow(channel, getJson);
    default:
      throw new BalanceNotSupportedError();
  }
}
