import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { Any } from 'google-protobuf/google/protobuf/any_pb';
import { Empty as ProtoEmpty } from 'google-protobuf/google/protobuf/empty_pb';
import { ServerFeaturesService } from '@eventstore/db-client/generated/serverfeatures_grpc_pb';
import { SupportedMethod, SupportedMethods } from '@eventstore/db-client/generated/serverfeatures_pb';
import { Empty, UUID, AllStreamPosition, WrongExpectedVersion } from '@eventstore/db-client/generated/shared_pb';
import { Code } from '@eventstore/db-client/generated/code_pb';
import { Status } from '@eventstore/db-client/generated/status_pb';
import { StreamsService } from '@eventstore/db-client/generated/streams_grpc_pb';
import { AppendReq, AppendResp, BatchAppendReq, BatchAppendResp, ReadReq, ReadResp } from '@eventstore/db-client/generated/streams_pb';
import { type Current, type Expected, FakeEventLog, type ProposedEvent, type StoredEvent } from './esdb-log';
import { identifierOf, readEvent, streamName } from './esdb-messages';
import { subscribeToAll } from './esdb-subscriptions';

/**
 * A test-tree EventStoreDB: a gRPC server on the service definitions @eventstore/db-client ships (its generated/
 * folder), speaking the subset the adapter uses — server features, Streams.Append and Streams.BatchAppend with
 * expected revisions, Streams.Read of a stream and of $all in both directions, and catch-up subscriptions to $all
 * (confirmation, catch-up, checkpoints, caught-up, live). Everything else answers UNIMPLEMENTED, as an older node
 * would. The store is in memory (esdb-log.ts). Connect with `esdb://127.0.0.1:<port>?tls=false`.
 */
export interface FakeEventStoreDb {
  url: string;
  log: FakeEventLog;
  close(): Promise<void>;
}

const SERVER_VERSION = '24.10.0';
const STREAMS = 'event_store.client.streams.Streams';

/** `batchAppend: false` answers like a node before 21.10 (no BatchAppend), so the client takes Streams.Append. */
export async function startFakeEventStoreDb(options: { batchAppend?: boolean } = {}): Promise<FakeEventStoreDb> {
  const log = new FakeEventLog();
  log.seedSystemEvents();
  const server = new grpc.Server();
  server.addService(ServerFeaturesService, {
    getSupportedMethods: (_call: unknown, callback: grpc.sendUnaryData<SupportedMethods>) => {
      const names = options.batchAppend === false ? ['read', 'append'] : ['read', 'append', 'batchappend'];
      const methods = names.map((name) => new SupportedMethod().setServiceName(STREAMS).setMethodName(name));
      callback(null, new SupportedMethods().setEventStoreServerVersion(SERVER_VERSION).setMethodsList(methods));
    },
  });
  server.addService(StreamsService, {
    read: (call: grpc.ServerWritableStream<ReadReq, ReadResp>) => read(log, call),
    append: (call: grpc.ServerReadableStream<AppendReq, AppendResp>, callback: grpc.sendUnaryData<AppendResp>) =>
      append(log, call, callback),
    batchAppend: (call: grpc.ServerDuplexStream<BatchAppendReq, BatchAppendResp>) => batchAppend(log, call),
    delete: unimplemented,
    tombstone: unimplemented,
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    url: `esdb://127.0.0.1:${port}?tls=false`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
        // Open subscriptions would hold a graceful shutdown forever.
        setTimeout(() => server.forceShutdown(), 200).unref();
      }),
  };
}

function unimplemented(_call: unknown, callback?: grpc.sendUnaryData<unknown>): void {
  const error = { code: grpc.status.UNIMPLEMENTED, details: 'not part of the fake EventStoreDB' };
  if (callback) callback(error, null);
}

function proposed(message: AppendReq.ProposedMessage | BatchAppendReq.ProposedMessage): ProposedEvent {
  const metadata = message.getMetadataMap();
  return {
    id: message.getId()?.getString() ?? '',
    type: metadata.get('type') ?? '',
    contentType: metadata.get('content-type') ?? 'application/octet-stream',
    data: message.getData_asU8(),
    customMetadata: message.getCustomMetadata_asU8(),
  };
}

function badRequest(message: string): grpc.ServiceError {
  return Object.assign(new Error(message), { code: grpc.status.INVALID_ARGUMENT, details: message, metadata: new grpc.Metadata() });
}

function append(log: FakeEventLog, call: grpc.ServerReadableStream<AppendReq, AppendResp>, callback: grpc.sendUnaryData<AppendResp>): void {
  let options: AppendReq.Options | undefined;
  const events: ProposedEvent[] = [];
  call.on('data', (request: AppendReq) => {
    if (request.hasOptions()) options = request.getOptions();
    else if (request.hasProposedMessage()) events.push(proposed(request.getProposedMessage() as AppendReq.ProposedMessage));
  });
  call.on('end', () => {
    if (!options) return callback(badRequest('the first message of an append must carry its options'), null);
    const Case = AppendReq.Options.ExpectedStreamRevisionCase;
    const expected: Expected = {
      [Case.REVISION]: () => BigInt(options!.getRevision()),
      [Case.NO_STREAM]: () => 'no_stream' as const,
      [Case.STREAM_EXISTS]: () => 'stream_exists' as const,
      [Case.ANY]: () => 'any' as const,
      [Case.EXPECTED_STREAM_REVISION_NOT_SET]: () => 'any' as const,
    }[options.getExpectedStreamRevisionCase()]();
    const outcome = log.append(streamName(options.getStreamIdentifier()), expected, events);
    const response = new AppendResp();
    if (outcome.kind === 'written') {
      const success = new AppendResp.Success();
      if (outcome.revision === 'no_stream') success.setNoStream(new Empty());
      else success.setCurrentRevision(outcome.revision.toString());
      if (outcome.position === null) success.setNoPosition(new Empty());
      else
        success.setPosition(
          new AppendResp.Position().setCommitPosition(outcome.position.toString()).setPreparePosition(outcome.position.toString()),
        );
      return callback(null, response.setSuccess(success));
    }
    const wrong = new AppendResp.WrongExpectedVersion();
    if (outcome.current === 'no_stream') wrong.setCurrentNoStream(new Empty());
    else wrong.setCurrentRevision(outcome.current.toString());
    if (expected === 'any') wrong.setExpectedAny(new Empty());
    else if (expected === 'no_stream') wrong.setExpectedNoStream(new Empty());
    else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new Empty());
    else wrong.setExpectedRevision(expected.toString());
    callback(null, response.setWrongExpectedVersion(wrong));
  });
}

function batchAppend(log: FakeEventLog, call: grpc.ServerDuplexStream<BatchAppendReq, BatchAppendResp>): void {
  const pending = new Map<string, { options?: BatchAppendReq.Options; events: ProposedEvent[] }>();
  call.on('data', (request: BatchAppendReq) => {
    const correlation = request.getCorrelationId()?.getString() ?? '';
    const batch = pending.get(correlation) ?? { events: [] };
    pending.set(correlation, batch);
    if (request.hasOptions()) batch.options = request.getOptions();
    batch.events.push(...request.getProposedMessagesList().map(proposed));
    if (!request.getIsFinal()) return;
    pending.delete(correlation);
    const options = batch.options;
    const response = new BatchAppendResp().setCorrelationId(new UUID().setString(correlation));
    if (!options) {
      call.write(response.setError(new Status().setCode(Code.INVALID_ARGUMENT).setMessage('a batch must carry its options')));
      return;
    }
    const name = streamName(options.getStreamIdentifier());
    response.setStreamIdentifier(identifierOf(name));
    const Case = BatchAppendReq.Options.ExpectedStreamPositionCase;
    let expected: Expected = 'any';
    switch (options.getExpectedStreamPositionCase()) {
      case Case.STREAM_POSITION:
        expected = BigInt(options.getStreamPosition());
        response.setStreamPosition(options.getStreamPosition());
        break;
      case Case.NO_STREAM:
        expected = 'no_stream';
        response.setNoStream(new ProtoEmpty());
        break;
      case Case.STREAM_EXISTS:
        expected = 'stream_exists';
        response.setStreamExists(new ProtoEmpty());
        break;
      default:
        response.setAny(new ProtoEmpty());
    }
    const outcome = log.append(name, expected, batch.events);
    if (outcome.kind === 'written') {
      const success = new BatchAppendResp.Success();
      if (outcome.revision === 'no_stream') success.setNoStream(new ProtoEmpty());
      else success.setCurrentRevision(outcome.revision.toString());
      if (outcome.position === null) success.setNoPosition(new ProtoEmpty());
      else
        success.setPosition(
          new AllStreamPosition().setCommitPosition(outcome.position.toString()).setPreparePosition(outcome.position.toString()),
        );
      call.write(response.setSuccess(success));
      return;
    }
    call.write(response.setError(wrongExpectedVersionStatus(outcome.current, expected)));
  });
  call.on('end', () => call.end());
}

/** BatchAppend reports a conflict as a google.rpc.Status whose details pack event_store.client.WrongExpectedVersion. */
function wrongExpectedVersionStatus(current: Current, expected: Expected): Status {
  const details = new WrongExpectedVersion();
  if (current === 'no_stream') details.setCurrentNoStream(new ProtoEmpty());
  else details.setCurrentStreamRevision(current.toString());
  if (expected === 'any') details.setExpectedAny(new ProtoEmpty());
  else if (expected === 'no_stream') details.setExpectedNoStream(new ProtoEmpty());
  else if (expected === 'stream_exists') details.setExpectedStreamExists(new ProtoEmpty());
  else details.setExpectedStreamPosition(expected.toString());
  const packed = new Any();
  packed.pack(details.serializeBinary(), 'event_store.client.WrongExpectedVersion');
  return new Status().setCode(Code.FAILED_PRECONDITION).setMessage('WrongExpectedVersion').setDetails(packed);
}

function read(log: FakeEventLog, call: grpc.ServerWritableStream<ReadReq, ReadResp>): void {
  const options = call.request.getOptions();
  if (!options) {
    call.destroy(badRequest('a read must carry its options'));
    return;
  }
  const Count = ReadReq.Options.CountOptionCase;
  if (options.getCountOptionCase() === Count.SUBSCRIPTION) {
    if (options.hasAll()) subscribeToAll(log, call, options, randomUUID());
    else call.destroy(Object.assign(badRequest('stream subscriptions are not part of the fake'), { code: grpc.status.UNIMPLEMENTED }));
    return;
  }
  const limit = Number(options.getCount() || '0');
  const backwards = options.getReadDirection() === ReadReq.Options.ReadDirection.BACKWARDS;
  let events: StoredEvent[];
  if (options.hasStream()) {
    const streamOptions = options.getStream() as ReadReq.Options.StreamOptions;
    const name = streamName(streamOptions.getStreamIdentifier());
    const stream = log.stream(name);
    if (!stream) {
      call.write(new ReadResp().setStreamNotFound(new ReadResp.StreamNotFound().setStreamIdentifier(identifierOf(name))));
      call.end();
      return;
    }
    const Revision = ReadReq.Options.StreamOptions.RevisionOptionCase;
    const from = {
      [Revision.START]: () => 0,
      [Revision.END]: () => (backwards ? stream.length - 1 : stream.length),
      [Revision.REVISION]: () => Math.min(Number(streamOptions.getRevision()), backwards ? stream.length - 1 : stream.length),
      [Revision.REVISION_OPTION_NOT_SET]: () => 0,
    }[streamOptions.getRevisionOptionCase()]();
    events = backwards ? stream.slice(0, from + 1).reverse() : stream.slice(from);
  } else {
    const all = options.getAll() as ReadReq.Options.AllOptions;
    const Position = ReadReq.Options.AllOptions.AllOptionCase;
    const at = all.getAllOptionCase() === Position.POSITION ? BigInt(all.getPosition()?.getCommitPosition() ?? '0') : null;
    const startCase = all.getAllOptionCase() === Position.START;
    // Forwards from p includes the event at p; backwards from p returns the events before it.
    const index = at === null ? (startCase ? 0 : log.all.length) : log.indexAtOrAfter(at);
    events = backwards ? log.all.slice(0, startCase ? 0 : index).reverse() : log.all.slice(startCase ? 0 : index);
  }
  for (const event of events.slice(0, limit)) call.write(readEvent(event));
  call.end();
}
