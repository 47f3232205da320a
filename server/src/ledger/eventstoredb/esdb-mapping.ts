import {
  ANY,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  NO_STREAM,
  type Position,
  type ReadPosition,
  type ResolvedEvent,
  START,
  STREAM_EXISTS,
  UnavailableError,
  DeadlineExceededError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import {
  type EventMetadata,
  EventStoreUnavailableError,
  type ExpectedRevision,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../event-store.port';

/** Pure translations between the port and @eventstore/db-client, kept apart so they are tested without a server. */

const SCHEMES: Record<string, string> = {
  esdb: 'esdb',
  'esdb+discover': 'esdb+discover',
  kurrentdb: 'esdb',
  'kurrentdb+discover': 'esdb+discover',
  kurrent: 'esdb',
  'kurrent+discover': 'esdb+discover',
  kdb: 'esdb',
  'kdb+discover': 'esdb+discover',
};

/** KurrentDB is EventStoreDB renamed; the 6.x client only parses the esdb schemes, so map the new names. */
export function normalizeEsdbUrl(url: string): string {
  const match = /^([a-z+]+):\/\//i.exec(url.trim());
  const scheme = match ? SCHEMES[match[1].toLowerCase()] : undefined;
  if (!match || !scheme) throw new Error(`EVENTSTORE_URL must start with esdb:// or kurrentdb:// (got "${redactUrl(url)}")`);
  return `${scheme}://${url.trim().slice(match[0].length)}`;
}

export function isEsdbUrl(url: string | undefined): boolean {
  const match = url ? /^([a-z+]+):\/\//i.exec(url.trim()) : null;
  return Boolean(match && SCHEMES[match[1].toLowerCase()]);
}

export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return BigInt(expected);
}

export function fromEsdbExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  return typeof expected === 'bigint' ? toSafeNumber(expected, 'expected revision') : expected;
}

/** The port's positions are numbers: a commit position passes 2^53 only after 9 PB of log, so refuse rather than round. */
export function toSafeNumber(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`EventStoreDB ${what} ${value} does not fit a JavaScript number`);
  }
  return Number(value);
}

export function fromEsdbPosition(position: Position): number {
  return toSafeNumber(position.commit, 'commit position');
}

/**
 * "After position p" as a read/subscription start. Single appends give every event its own commit position,
 * equal to its prepare position, so (p, p) names the event exactly and the server resumes after it.
 */
export function toEsdbReadPosition(after: number | undefined): ReadPosition {
  if (!after) return START;
  const value = BigInt(after);
  return { commit: value, prepare: value };
}

/** `$`-prefixed streams and types are the server's own ($stats, $settings, links); never ledger events. */
export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

const EMPTY_METADATA: EventMetadata = {
  correlationId: '',
  causationId: null,
  actor: { type: 'system' },
  clientIp: null,
  reasonCode: '',
  schemaVersion: 1,
};

/** Null for events the ledger must skip (system events, unresolved links, binary payloads). */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || !event.isJson || isSystemEvent(event.streamId, event.type)) return null;
  const position = event.position?.commit ?? resolved.commitPosition;
  if (position === undefined) throw new Error('EventStoreDB did not return event positions: version 22.6 or later is required');
  const metadata =
    event.metadata && typeof event.metadata === 'object' && !(event.metadata instanceof Uint8Array)
      ? (event.metadata as unknown as EventMetadata)
      : EMPTY_METADATA;
  return {
    id: event.id,
    streamId: event.streamId,
    revision: toSafeNumber(event.revision, 'revision'),
    position: toSafeNumber(position, 'commit position'),
    type: event.type,
    data: event.data as Record<string, unknown>,
    metadata,
    createdAt: event.created instanceof Date ? event.created : new Date(event.created as unknown as number),
  };
}

/** Client errors → port errors; anything unrecognised passes through unchanged. */
export function mapEsdbError(error: unknown, context: { streamId?: string; expected?: ExpectedRevision; url: string }): unknown {
  if (error instanceof WrongExpectedVersionError) {
    const actual = error.actualVersion === NO_STREAM ? 'no_stream' : toSafeNumber(error.actualVersion as bigint, 'revision');
    return new WrongExpectedRevisionError(
      context.streamId ?? error.streamName,
      context.expected ?? fromEsdbExpectedRevision(error.expectedVersion),
      actual,
    );
  }
  if (isUnreachable(error)) {
    const reason = (error as Error).message.split('\n')[0];
    return new EventStoreUnavailableError(
      `EventStoreDB at ${redactUrl(context.url)} is unreachable (${reason}); check EVENTSTORE_URL and that the server is up`,
      error,
    );
  }
  return error;
}

/** gRPC status codes UNAVAILABLE and DEADLINE_EXCEEDED (https://grpc.github.io/grpc/core/md_doc_statuscodes.html). */
const UNREACHABLE_GRPC_CODES = new Set([14, 4]);

function isUnreachable(error: unknown): boolean {
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError) return true;
  // The client's batch-append path rejects with the raw gRPC ServiceError instead of its own error classes.
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'number' && UNREACHABLE_GRPC_CODES.has(code);
}
