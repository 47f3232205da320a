import { ChannelType } from '../../upstreams/channel-types';

/**
 * new-api's shouldRetry, on the status after status_code_mapping: never for local errors, a forced
 * channel or when no attempt remains; 429, 307 and 5xx (but 504/524, timeouts) retry; 400 only on Anthropic;
 * 408 and 2xx never; any other status (401, 403, 404, 422…) retries.
 */
export function shouldRetry(failure: { status: number; local: boolean }, remaining: number, forced: boolean, channelType: number): boolean {
  if (failure.local || remaining <= 0 || forced) return false;
  const status = failure.status;
  if (status === 429 || status === 307) return true;
  if (status >= 500) return status !== 504 && status !== 524;
  if (status === 400) return channelType === ChannelType.Anthropic;
  if (status === 408) return false;
  if (status >= 200 && status < 300) return false;
  return true;
}
