import { StreamIdentifier, UUID } from '@eventstore/db-client/generated/shared_pb';
import { ReadResp } from '@eventstore/db-client/generated/streams_pb';
import type { StoredEvent } from './esdb-log';

export function streamName(identifier: StreamIdentifier | undefined): string {
  return Buffer.from(identifier?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');
}

export function identifierOf(name: string): StreamIdentifier {
  return new StreamIdentifier().setStreamName(Buffer.from(name, 'utf8'));
}

/** One event as Streams.Read sends it: the record with its positions, and the commit position beside it. */
export function readEvent(event: StoredEvent): ReadResp {
  const recorded = new ReadResp.ReadEvent.RecordedEvent()
    .setId(new UUID().setString(event.id))
    .setStreamIdentifier(identifierOf(event.streamId))
    .setStreamRevision(String(event.revision))
    .setPreparePosition(event.position.toString())
    .setCommitPosition(event.position.toString())
    .setData(event.data)
    .setCustomMetadata(event.customMetadata);
  const metadata = recorded.getMetadataMap();
  metadata.set('type', event.type);
  metadata.set('content-type', event.contentType);
  metadata.set('created', event.createdTicks.toString());
  return new ReadResp().setEvent(new ReadResp.ReadEvent().setEvent(recorded).setCommitPosition(event.position.toString()));
}
