import type { Json } from '../shared/converted-text-stream';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { OpenAIError, UpstreamFailure, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';
import { UpstreamLocalError } from '../upstream-errors';

export const CLOUDFLARE_BASE_URL = 'https://api.cloudflare.com';

/** The channel's `other` must hold the Cloudflare account id; without it no URL can be built. */
export class CloudflareAccountMissingError extends UpstreamLocalError {
  constructor() {
    super('the Cloudflare channel has no account id (set it in the channel’s other field)', 'invalid_channel_config', 500);
  }
}

function accountId(input: UpstreamRequestInput): string {
  const id = (input.channel.other ?? '').trim();
  if (!id) throw new CloudflareAccountMissingError();
  return encodeURIComponent(id);
}

/** `/client/v4/accounts/{account}/ai/<rest>` on the channel's base URL (default api.cloudflare.com). */
export function cloudflareTarget(input: UpstreamRequestInput, rest: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const base = splitBaseUrl(channelBaseUrl(input.channel.baseUrl, CLOUDFLARE_BASE_URL, 'cloudflare'));
  return upstreamTarget(base, `/client/v4/accounts/${accountId(input)}/ai/${rest}`);
}

/** `/ai/run/{model}`: the model id keeps its slashes (`@cf/meta/llama-3.1-8b-instruct`). */
export function cloudflareRunTarget(input: UpstreamRequestInput): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const model = input.upstreamModel
    .split('/')
    .map((segment) => encodeURIComponent(segment).replaceAll('%40', '@'))
    .join('/');
  return cloudflareTarget(input, `run/${model}`);
}

/**
 * Cloudflare's API envelope error `{success: false, errors: [{code, message}]}`: the messages joined, type
 * `cloudflare_error`, code the first error's code. Code 10000 (Authentication error) answers 401 whatever the HTTP
 * status, so a revoked token disables the channel.
 */
export function cloudflareError(status: number, body: Json): UpstreamFailure | null {
  if (!Array.isArray(body.errors) || body.errors.length === 0) return null;
  const errors = body.errors as Json[];
  const message =
    errors
      .map((error) => String(error.message ?? ''))
      .filter(Boolean)
      .join('; ') || `bad response status code ${status}`;
  const code = errors[0].code;
  const error: OpenAIError = {
    message,
    type: 'cloudflare_error',
    param: '',
    code: typeof code === 'number' || typeof code === 'string' ? code : null,
  };
  return { ok: false, status: code === 10000 ? 401 : status, error };
}
