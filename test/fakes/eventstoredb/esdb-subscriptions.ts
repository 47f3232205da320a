import type * as grpc from '@grpc/grpc-js';
import { ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { FakeEventLog, StoredEvent } from './esdb-log';
import { readEvent } from './esdb-messages';

/** A real node's filtered subscriptions send a checkpoint every `multiplier × 32` events searched. */
const CHECKPOINT_WINDOW = 32;

/**
 * A catch-up subscription to $all: the confirmation, every stored event after the start position that passes the
 * filter, a checkpoint each search window (filtered subscriptions only), CaughtUp once the log's end is reached,
 * then live events in log order as they are appended. One cursor over the log serves catch-up and live alike, so
 * an append made during catch-up is delivered exactly once and in order.
 */
export function subscribeToAll(
  log: FakeEventLog,
  call: grpc.ServerWritableStream<ReadReq, ReadResp>,
  options: ReadReq.Options,
  id: string,
): void {
  const all = options.getAll() as ReadReq.Options.AllOptions;
  const Case = ReadReq.Options.AllOptions.AllOptionCase;
  let cursor: number;
  if (all.getAllOptionCase() === Case.END) cursor = log.all.length;
  else if (all.getAllOptionCase() === Case.POSITION) {
    // Subscribing from p resumes after p: the event at p was the subscriber's last.
    const at = BigInt(all.getPosition()?.getCommitPosition() ?? '0');
    cursor = log.indexAtOrAfter(at);
    if (log.all[cursor]?.position === at) cursor += 1;
  } else cursor = 0;
  const accept = filterOf(options);
  const window = accept ? CHECKPOINT_WINDOW * Math.max(1, options.getFilter()?.getCheckpointintervalmultiplier() ?? 1) : 0;
  let searched = 0;
  let caughtUp = false;
  let closed = false;

  const pump = (): void => {
    if (closed) return;
    while (cursor < log.all.length) {
      const event = log.all[cursor];
      cursor += 1;
      if (!accept || accept(event)) call.write(readEvent(event));
      searched += 1;
      if (window && searched % window === 0) {
        const checkpoint = new ReadResp.Checkpoint()
          .setCommitPosition(event.position.toString())
          .setPreparePosition(event.position.toString());
        call.write(new ReadResp().setCheckpoint(checkpoint));
      }
    }
    if (!caughtUp) {
      caughtUp = true;
      call.write(new ReadResp().setCaughtUp(new ReadResp.CaughtUp()));
    }
  };
  const stop = log.onAppend(pump);
  const end = (): void => {
    closed = true;
    stop();
  };
  call.on('cancelled', end);
  call.on('close', end);
  call.on('error', end);
  call.write(new ReadResp().setConfirmation(new ReadResp.SubscriptionConfirmation().setSubscriptionId(id)));
  pump();
}

/** The server-side filter: on event type or stream name, by regex or by prefixes. Null when unfiltered. */
function filterOf(options: ReadReq.Options): ((event: StoredEvent) => boolean) | null {
  if (!options.hasFilter()) return null;
  const filter = options.getFilter() as ReadReq.Options.FilterOptions;
  const onType = filter.hasEventType();
  const expression = (onType ? filter.getEventType() : filter.getStreamIdentifier()) as ReadReq.Options.FilterOptions.Expression;
  const regex = expression.getRegex() ? new RegExp(expression.getRegex()) : null;
  const prefixes = expression.getPrefixList();
  return (event) => {
    const subject = onType ? event.type : event.streamId;
    return regex ? regex.test(subject) : prefixes.some((prefix) => subject.startsWith(prefix));
  };
}
