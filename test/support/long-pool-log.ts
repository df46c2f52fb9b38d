import {
  decideAllocate,
  decideCreatePool,
  decideRelease,
  decideUpdatePool,
  parsePoolSpec,
  PoolAggregate,
  schemaVersionOf,
} from '@ipledger/domain';
import type { DomainEvent, PoolState } from '@ipledger/domain';
import type { Pool } from 'pg';
import { seededRandom } from './seeded-random';
import { insertRows, type LogRow } from './synthetic-log';

/**
 * One pool's long history, decided by the real aggregate and inserted in bulk (the way an import
 * or a long-running cluster leaves it): `events` events of `cidr` (a /22 or larger) that keeps about `live` pods,
 * allocated and released in random order, its labels changed now and then. Returns the stream id.
 */
export async function writeLongPool(db: Pool, name: string, cidr: string, events: number, live = 400, chunk = 20_000): Promise<string> {
  const streamId = `${PoolAggregate.streamPrefix}-${name}`;
  const rand = seededRandom(32);
  let state: PoolState = PoolAggregate.initialState();
  let rows: LogRow[] = [];
  const held: string[] = [];
  let version = 0;
  const emit = (event: DomainEvent | null) => {
    if (!event) return;
    version++;
    state = PoolAggregate.evolve(state, { ...event, version });
    rows.push({
      streamId,
      version,
      type: event.type,
      schemaVersion: schemaVersionOf(event.type),
      data: JSON.stringify(event.data),
      metadata: JSON.stringify({ actor: 'seed', source: 'rest', correlationId: `r-${version}`, causationId: `r-${version}` }),
    });
  };
  emit(decideCreatePool(state, parsePoolSpec({ name, cidr, labels: { round: '0' } })));
  let storing: Promise<void> = Promise.resolve();
  while (version < events) {
    const roll = rand();
    if (roll < 0.001) emit(decideUpdatePool(state, name, { labels: { round: String(version) } }));
    else if (held.length < live && roll < 0.5 + 0.5 * (1 - held.length / live)) {
      const handle = `h-${version}`;
      emit(
        decideAllocate(state, { handle, node: `node-${version % 7}`, namespace: `ns-${version % 5}`, pod: `pod-${version}`, podUid: null })
          .event,
      );
      held.push(handle);
    } else if (held.length > 0) {
      const index = Math.floor(rand() * held.length);
      const [handle] = held.splice(index, 1);
      emit(decideRelease(state, handle));
    }
    if (rows.length >= chunk) {
      await storing;
      storing = insertRows(db, rows);
      rows = [];
    }
  }
  await storing;
  await insertRows(db, rows);
  return streamId;
}
