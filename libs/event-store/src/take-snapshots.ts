import type { PoolClient } from 'pg';
import { foldEvents, type AggregateType } from './aggregate-repository';
import { readStream } from './read-stream';
import { readStreamHeads } from './read-stream-heads';
import type { RecordedEvent } from './recorded-event';
import { writeSnapshot } from './write-snapshot';

const PAGE = 5000;

/**
 * Snapshots, at its last version, every stream of the types that keep snapshots which is at least
 * `snapshot.every` events long: what the API would have written as the stream grew, so that its
 * first load after a log was imported replays no more than it would have. Returns how many were written.
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
      for (let at = 0; at < version; ) {
        const events = await readStream(db, streamId, at, { limit: PAGE });
        if (events.length === 0) break;
        state = foldEvents(type, state, events.map(upcast));
        at = events[events.length - 1].version;
      }
      if (version < codec.every(state)) continue;
      await writeSnapshot(db, streamId, version, codec.serialize(state));
      written++;
    }
  }
  return written;
}
