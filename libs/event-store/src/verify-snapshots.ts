import type { Pool } from 'pg';
import { foldEvents, type AggregateType } from './aggregate-repository';
import { readStream } from './read-stream';
import { readStreamSnapshots, type StoredSnapshot } from './read-stream-snapshots';
import type { RecordedEvent } from './recorded-event';

export interface SnapshotDifference {
  streamId: string;
  version: number;
  reason: string;
}

/** a stream folded so far, kept while its snapshots are checked */
interface Fold {
  streamId: string;
  type: AggregateType<unknown>;
  state: unknown;
  version: number;
  ended: boolean;
}

const SNAPSHOT_PAGE = 50;
const EVENT_PAGE = 5000;

/**
 * A stored snapshot read and written again by its codec; null when the codec declines its format
 * (a newer release's: loads replay such a stream); as stored when it fails on it (then it differs).
 */
function loadedAs(codec: NonNullable<AggregateType<unknown>['snapshot']>, stored: unknown): unknown {
  try {
    const state = codec.deserialize(stored);
    return state === null ? null : codec.serialize(state);
  } catch {
    return stored;
  }
}

/**
 * Compares every stored snapshot with the fold of its stream's events up to the snapshot's version
 * (the state aggregates would load, had they replayed instead): a snapshot edited, forged or taken
 * from a wrong state is named. Each stream is folded once, in pages, however many snapshots it has.
 */
export async function verifySnapshots(
  pool: Pool,
  types: ReadonlyArray<AggregateType<unknown>>,
  upcast: (event: RecordedEvent) => RecordedEvent = (event) => event,
): Promise<{ snapshots: number; differences: SnapshotDifference[] }> {
  const differences: SnapshotDifference[] = [];
  let checked = 0;
  let fold = null as Fold | null;
  let last: StoredSnapshot | null = null;
  for (;;) {
    const page = await readStreamSnapshots(pool, last, SNAPSHOT_PAGE);
    for (const snapshot of page) {
      checked++;
      const { streamId, version } = snapshot;
      if (fold?.streamId !== streamId) {
        const type = types.find((t) => t.snapshot && streamId.startsWith(`${t.streamPrefix}-`));
        if (!type) {
          differences.push({ streamId, version, reason: 'no aggregate type keeps snapshots of this stream' });
          fold = null;
          continue;
        }
        fold = { streamId, type, state: type.initialState(), version: 0, ended: false };
      }
      while (!fold.ended && fold.version < version) {
        const events = await readStream(pool, streamId, fold.version, { limit: Math.min(EVENT_PAGE, version - fold.version) });
        fold.state = foldEvents(fold.type, fold.state, events.map(upcast));
        fold.version = events.at(-1)?.version ?? fold.version;
        fold.ended = events.length === 0;
      }
      if (fold.version < version) {
        differences.push({ streamId, version, reason: `the stream has ${fold.version} events, fewer than the snapshot's version` });
        continue;
      }
      const codec = fold.type.snapshot!;
      const folded = canonicalJson(codec.serialize(fold.state));
      // the stored one as the aggregate loads it: one taken before a codec change (an order, a field defaulted) reads as it does
      const loaded = loadedAs(codec, snapshot.state);
      if (loaded === null) {
        differences.push({
          streamId,
          version,
          reason: 'its format is not one this release reads (a newer release wrote it?): loads replay this stream instead',
        });
        continue;
      }
      const stored = canonicalJson(loaded);
      if (folded !== stored) differences.push({ streamId, version, reason: `stored ${stored}, the fold of its events gives ${folded}` });
    }
    if (page.length < SNAPSHOT_PAGE) return { snapshots: checked, differences };
    last = page[page.length - 1];
  }
}

/** JSON with object keys sorted (jsonb keeps its own key order), array order kept. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(JSON.parse(JSON.stringify(value)), (_, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
