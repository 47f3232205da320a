import type { RoutableChannel } from '../relay-ports';

/** The channel's status_code_mapping (`{"400":"500"}`), from its parsed config, or null. */
export function statusCodeMappingOf(channel: RoutableChannel): Record<string, string> | null {
  const raw = (channel as RoutableChannel & { statusCodeMapping?: unknown }).statusCodeMapping ?? channel.config?.status_code_mapping;
  let value: unknown = raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return null;
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return value as Record<string, string>;
}

/**
 * Reference §3.6: applied to upstream errors (never to a 200); it changes the status the client sees and the
 * retry and disable decisions alike.
 */
export function applyStatusCodeMapping(channel: RoutableChannel, status: number): number {
  if (status === 200) return status;
  const mapping = statusCodeMappingOf(channel);
  const mapped = mapping?.[String(status)];
  const next = mapped === undefined ? NaN : Number(mapped);
  return Number.isInteger(next) && next >= 100 && next <= 599 ? next : status;
}
