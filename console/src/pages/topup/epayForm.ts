import { apiFetch } from '../../providers/httpClient';

export type PaymentMethod = 'zfb' | 'wx';

/** `/api/user/pay` and `/amount` answer `{message:"success"|"error", data, url?}` (no `success` key). */
interface PayAnswer<T> {
  message?: string;
  data?: T | string;
  url?: string;
}

/** An error whose text is the server's own (`data` of a `message:"error"` answer). */
export class TopUpError extends Error {}

const payCall = async <T>(path: string, body: unknown): Promise<{ data: T; url?: string }> => {
  const answer = (await apiFetch<T>(path, { method: 'POST', body })) as unknown as PayAnswer<T>;
  if (answer.message !== 'success') throw new TopUpError(typeof answer.data === 'string' ? answer.data : String(answer.message ?? ''));
  return { data: answer.data as T, url: answer.url };
};

/** The payable money of `amount` (a 2-decimal string). */
export const quoteAmount = async (amount: number): Promise<string> =>
  (await payCall<string>('/api/user/amount', { amount, top_up_code: '' })).data;

/** Places the order; resolves to the signed form fields and the gateway's submit.php. */
export const requestPayment = async (amount: number, method: PaymentMethod): Promise<{ params: Record<string, string>; url: string }> => {
  const answer = await payCall<Record<string, string>>('/api/user/pay', { amount, payment_method: method, top_up_code: '' });
  return { params: answer.data, url: answer.url ?? '' };
};

/** Posts the signed fields to the gateway as a hidden form, in a new tab (new-api's behaviour), so the wallet stays open. */
export const postPaymentForm = (url: string, params: Record<string, string>): void => {
  const form = document.createElement('form');
  form.action = url;
  form.method = 'POST';
  form.target = '_blank';
  form.style.display = 'none';
  for (const [name, value] of Object.entries(params)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
  document.body.removeChild(form);
};
