import type { RoutableChannel } from '../relay-ports';

/**
 * A channel's status_code_mapping, as new-api applies it: to upstream errors (never to a 200); it changes the status
 * the client sees and the retry and disable decisions alike.
 */
export function applyStatusCodeMapping(channel: RoutableChannel, status: number): number {
  if (status === 200) return status;
  // Parsed once when the router loads the channel (channel-router.ts), not per error.
  const mapped = channel.statusCodeMapping[String(status)];
  const next = mapped === undefined ? NaN : Number(mapped);
  return Number.isInteger(next) && next >= 100 && next <= 599 ? next : status;
}
