import { EpayFake } from '../fakes/epay/epay-fake';
import type { TestApp } from '../support/app';
import { call, type Caller, setOptions } from './users-support';

/** Shared steps of the online top-up specs (test/e2e/topup-*.spec.ts): the fake gateway, ordering, paying. */

export interface PayAnswer {
  message: string;
  data: Record<string, string> | string;
  url?: string;
}

/** Starts the fake gateway and points the options at it (PayAddress, EpayId, EpayKey). */
export async function configureEpay(target: TestApp): Promise<EpayFake> {
  const fake = await EpayFake.start();
  await setOptions(target, { PayAddress: fake.payAddress, EpayId: fake.pid, EpayKey: fake.key });
  return fake;
}

/** POST /api/user/pay; throws unless it answered success. */
export async function order(
  target: TestApp,
  caller: Caller,
  amount: number,
  method = 'zfb',
): Promise<{ params: Record<string, string>; url: string }> {
  const response = await call(target, caller, 'post', '/api/user/pay', { amount, payment_method: method, top_up_code: '' }).expect(200);
  const body = response.body as PayAnswer;
  if (body.message !== 'success' || typeof body.data === 'string') throw new Error(`pay refused: ${JSON.stringify(body)}`);
  return { params: body.data, url: body.url! };
}

/** What the console's hidden form does: POST the fields, form-encoded, to `url` (the fake's submit.php). */
export async function submitForm(form: { params: Record<string, string>; url: string }): Promise<string> {
  const response = await fetch(form.url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form.params).toString(),
  });
  return response.text();
}

/** An order placed through the API and submitted to the fake: its trade number. */
export async function placeAndSubmit(target: TestApp, caller: Caller, amount: number, method = 'zfb'): Promise<string> {
  const form = await order(target, caller, amount, method);
  await submitForm(form);
  return form.params.out_trade_no;
}

/** Sends a callback URL (as the fake built it) to the in-process server; resolves to the text answered. */
export async function deliver(target: TestApp, callbackUrl: string): Promise<string> {
  const url = new URL(callbackUrl);
  const response = await target.http().get(`${url.pathname}${url.search}`).buffer(true);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain/);
  return response.text;
}
