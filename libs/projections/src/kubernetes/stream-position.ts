/**
 * Where a message is: JetStream numbers a stream's messages in publish order, and a stream made
 * again numbers them from 1 again, so the epoch of the stream (see streamEpoch) comes first.
 */
export interface StreamPosition {
  streamEpoch: number;
  streamSequence: number;
}

/** a came before b: of an older stream, or earlier in the same one */
export const olderThan = (a: StreamPosition, b: StreamPosition): boolean =>
  a.streamEpoch < b.streamEpoch || (a.streamEpoch === b.streamEpoch && a.streamSequence < b.streamSequence);
