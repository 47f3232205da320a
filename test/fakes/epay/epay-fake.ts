import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest } from '../http-fake';

/**
 * A TEST FIXTURE: a fake Epay ("易支付") gateway speaking the protocol new-api's go-epay client speaks.
 *
 * - `POST /submit.php` (form-urlencoded, what the browser posts): `pid, type, out_trade_no, notify_url, return_url,
 *   name, money, device?, sign_type, sign`. The fake checks the merchant id, the type (alipay, wxpay), the required
 *   fields and the MD5 signature, records the order and shows a cashier page (HTML); a bad form gets an error page.
 * - The asynchronous notification: a GET to the order's `notify_url` with `pid, trade_no, out_trade_no, type, name,
 *   money, trade_status, sign_type, sign`, signed with the merchant key; the merchant answers the text `success`.
 *
 * The signature is implemented here on its own (not imported from the server), so the specs check that both sides
 * agree on the scheme: drop sign, sign_type and empty values, sort keys, join k=v with &, append the key, MD5.
 */
export interface EpayOrder {
  pid: string;
  type: string;
  outTradeNo: string;
  notifyUrl: string;
  returnUrl: string;
  name: string;
  money: string;
  /** The gateway's own trade number, sent back in the callback as `trade_no`. */
  tradeNo: string;
  /** The raw form as posted. */
  form: Record<string, string>;
}

export function epayFakeSign(params: Record<string, string>, key: string): string {
  const text = Object.keys(params)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && params[name] !== '')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `${name}=${params[name]}`)
    .join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function page(response: ServerResponse, status: number, title: string, body: string): void {
  response
    .writeHead(status, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`);
}

export class EpayFake extends HttpFake {
  /** Submitted orders by out_trade_no (only forms that passed every check). */
  readonly orders = new Map<string, EpayOrder>();
  /** Forms refused, with the reason. */
  readonly refused: Array<{ reason: string; form: Record<string, string> }> = [];
  private sequence = 0;

  constructor(
    readonly pid = '1001',
    readonly key = 'epay-merchant-key',
  ) {
    super((request, response) => this.route(request, response));
  }

  static async start(pid?: string, key?: string): Promise<EpayFake> {
    return new EpayFake(pid, key).start();
  }

  /** What the PayAddress option is set to: the gateway's base (go-epay replaces the path with /submit.php). */
  get payAddress(): string {
    return `${this.baseUrl}/`;
  }

  private route(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    if (request.method !== 'POST' || path !== '/submit.php') return page(response, 404, 'Not found', 'not found');
    const form = Object.fromEntries(new URLSearchParams(request.body));
    const refuse = (reason: string) => {
      this.refused.push({ reason, form });
      page(response, 200, '支付失败', `<p class="error">${escapeHtml(reason)}</p>`);
    };
    for (const field of ['pid', 'type', 'out_trade_no', 'notify_url', 'return_url', 'name', 'money', 'sign']) {
      if (!form[field]) return refuse(`缺少参数 ${field}`);
    }
    if (form.pid !== this.pid) return refuse('商户不存在');
    if (form.type !== 'alipay' && form.type !== 'wxpay') return refuse('支付方式不存在');
    if (!/^\d+(\.\d{1,2})?$/.test(form.money) || Number(form.money) <= 0) return refuse('金额不合法');
    if (form.sign_type !== 'MD5' || form.sign !== epayFakeSign(form, this.key)) return refuse('签名校验失败');
    const order: EpayOrder = {
      pid: form.pid,
      type: form.type,
      outTradeNo: form.out_trade_no,
      notifyUrl: form.notify_url,
      returnUrl: form.return_url,
      name: form.name,
      money: form.money,
      tradeNo: this.orders.get(form.out_trade_no)?.tradeNo ?? `2024${String(++this.sequence).padStart(12, '0')}`,
      form,
    };
    this.orders.set(order.outTradeNo, order);
    page(
      response,
      200,
      '易支付收银台',
      `<h1>易支付收银台</h1><p data-testid="epay-trade-no">${escapeHtml(order.outTradeNo)}</p>` +
        `<p data-testid="epay-money">${escapeHtml(order.money)}</p><p data-testid="epay-type">${escapeHtml(order.type)}</p>`,
    );
  }

  /** The signed callback parameters for a submitted order; `overrides` change fields before signing (e.g. money). */
  callbackParams(outTradeNo: string, overrides: Record<string, string> = {}): Record<string, string> {
    const order = this.orders.get(outTradeNo);
    if (!order) throw new Error(`EpayFake: no submitted order ${outTradeNo}`);
    const params: Record<string, string> = {
      pid: this.pid,
      trade_no: order.tradeNo,
      out_trade_no: order.outTradeNo,
      type: order.type,
      name: order.name,
      money: order.money,
      trade_status: 'TRADE_SUCCESS',
      ...overrides,
    };
    return { ...params, sign_type: 'MD5', sign: epayFakeSign(params, this.key) };
  }

  /** The callback URL (the order's notify_url plus the signed query) the gateway would call. */
  callbackUrl(
    outTradeNo: string,
    overrides: Record<string, string> = {},
    sign?: (params: Record<string, string>) => Record<string, string>,
  ): string {
    const order = this.orders.get(outTradeNo);
    if (!order) throw new Error(`EpayFake: no submitted order ${outTradeNo}`);
    const params = sign ? sign(this.callbackParams(outTradeNo, overrides)) : this.callbackParams(outTradeNo, overrides);
    const url = new URL(order.notifyUrl);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** Sends the signed callback over HTTP, as the gateway does once paid; resolves to the merchant's answer text. */
  async notify(outTradeNo: string, overrides: Record<string, string> = {}): Promise<string> {
    const response = await fetch(this.callbackUrl(outTradeNo, overrides));
    return response.text();
  }
}
