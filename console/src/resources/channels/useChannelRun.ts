import { useCallback, useEffect, useRef, useState } from 'react';
import { type Channel, searchChannels, startTestAllChannels, startUpdateAllBalances } from '../../providers/endpoints/channelEndpoints';

export type RunKind = 'test' | 'balance';

/** Where a server-side run stands, as the channel list shows it. */
export interface RunProgress {
  kind: RunKind;
  /** Jobs the server queued. */
  total: number;
  /** Channels whose test time (or balance time) moved since the start. */
  done: number;
  /** Test run: tested channels still enabled, and those now disabled. Balance run: unused. */
  enabled: number;
  disabled: number;
  finished: boolean;
  /** The run stopped moving before every job answered (failed balance queries leave no time behind). */
  stalled: boolean;
}

/** MJ and Suno channels cannot be tested: their jobs fail without a test time. */
const UNTESTABLE_TYPES = new Set([2, 5, 36]);
const POLL_MS = 1500;
const STALL_MS = 20_000;

const stamp = (channel: Channel, kind: RunKind) => (kind === 'test' ? channel.test_time : channel.balance_updated_time);

/**
 * Starts `GET /api/channel/test` or `/update_balance` (the server queues one job per channel and answers how many),
 * then reads the channels every 1.5 s and counts those whose time moved, until all are done or nothing moves for 20 s.
 */
export const useChannelRun = (onTick: () => void) => {
  const [progress, setProgress] = useState<RunProgress | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const start = useCallback(
    async (kind: RunKind) => {
      const before = new Map((await searchChannels({})).map((channel) => [channel.id, stamp(channel, kind)]));
      const { queued } = kind === 'test' ? await startTestAllChannels() : await startUpdateAllBalances();
      let lastDone = -1;
      let lastMove = Date.now();
      const poll = async () => {
        const channels = await searchChannels({}).catch(() => null);
        if (channels) {
          const expected = kind === 'test' ? channels.filter((channel) => !UNTESTABLE_TYPES.has(channel.type)).length : queued;
          const total = Math.min(queued, expected);
          const moved = channels.filter((channel) => stamp(channel, kind) > (before.get(channel.id) ?? 0));
          const enabled = moved.filter((channel) => channel.status === 1).length;
          if (moved.length !== lastDone) {
            lastDone = moved.length;
            lastMove = Date.now();
          }
          const finished = moved.length >= total;
          const stalled = !finished && Date.now() - lastMove > STALL_MS;
          setProgress({
            kind,
            total,
            done: moved.length,
            enabled,
            disabled: moved.length - enabled,
            finished: finished || stalled,
            stalled,
          });
          onTick();
          if (finished || stalled) return;
        }
        timer.current = setTimeout(() => void poll(), POLL_MS);
      };
      setProgress({ kind, total: queued, done: 0, enabled: 0, disabled: 0, finished: queued === 0, stalled: false });
      if (queued > 0) timer.current = setTimeout(() => void poll(), POLL_MS);
    },
    [onTick],
  );

  return { progress, start, clear: () => setProgress(null) };
};
