import type { PoolClient } from 'pg';
import { foldEvents, type AggregateType } from './aggregate-repository';
import { readStream } from './read-stream';
import { readStreamHeads } from './read-stream-heads';
import type { RecordedEvent } from './recorded-event';
import { writeSnapshot } from './write-snapshot';

const PAGE = 5000;

/**
 * Snapshots every stream of the types that keep snapshots, every `snapshot.every` events along
 * its whole history: what the API would have written as the stream grew, so that neither its
 * first load after a log was imported nor a replay to a past instant (`?at=`) folds more than it
 * would have. Returns how many were written.
 */
export async function takeSnapshots(
  db: PoolClient,
  types: ReadonlyArray<AggregateType<unknown>>,
  upcast: (event: RecordedEvent) => RecordedEvent = (event) => event,
): Promise<number> {
  let written = 0;
  for (const type of types) {
    const codec = type.snapshot;
    if (!codec) continue;
    for (const { streamId, version } of await readStreamHeads(db, type.streamPrefix)) {
      let state = type.initialState();
      let snapshotted = 0;
      for (let at = 0; at < version; ) {
        const events = (await readStream(db, streamId, at, { limit: PAGE })).map(upcast);
        if (events.length === 0) break;
        // folded in slices that end where a snapshot is due, so each lands at its exact version
        for (let i = 0; i < events.length; ) {
          const due = Math.max(1, codec.every(state) - (at - snapshotted));
          const slice = events.slice(i, i + due);
          state = foldEvents(type, state, slice);
          at = slice[slice.length - 1].version;
          i += slice.length;
          if (at - snapshotted < codec.every(state)) continue;
          await writeSnapshot(db, streamId, at, codec.serialize(state));
          snapshotted = at;
          written++;
        }
      }
    }
  }
  return written;
}
