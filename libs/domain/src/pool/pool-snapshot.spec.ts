import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import type { PoolEvent } from '../events';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideReserveRange } from './decide-reserve-range';
import { PoolAggregate } from './pool.aggregate';
import { deserializePool, POOL_SNAPSHOT_FORMAT, serializePool } from './pool-snapshot';
import { parsePoolSpec, type PoolSpecInput } from './pool-spec';
import type { PoolState } from './pool-state';

const { evolvedAt } = deciderSpecification(PoolAggregate);
const apply = (state: PoolState, events: Array<PoolEvent | null>, at = 0) => evolvedAt(new Date(at), state, ...events);
const holder = (handle: string, node: string) => ({ handle, node, namespace: 'default', pod: handle, podUid: null });
const allocate = (state: PoolState, handle: string, node: string) => {
  const { claim, event } = decideAllocate(state, holder(handle, node));
  return apply(state, [claim, event]);
};

/** A pool with something of everything a snapshot holds: a range, holders, blocks (one empty) and a cooling address. */
function busyPool(input: Partial<PoolSpecInput> = { blockSize: 26, blockAffinity: 'borrow', reuseDelaySeconds: 60 }): PoolState {
  let state = PoolAggregate.initialState();
  state = apply(state, [decideCreatePool(state, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', ...input }))]);
  state = apply(state, [decideReserveRange(state, DEFAULT_CLUSTER, 'default', 'web', 3n)]);
  state = allocate(state, 'h-a', 'a');
  state = allocate(state, 'h-b', 'b');
  return apply(state, [decideRelease(state, 'h-b')], 5_000);
}

/** As stored: through JSON (jsonb) and back. */
const stored = (state: PoolState) => JSON.parse(JSON.stringify(serializePool(state))) as Record<string, unknown>;
/** What a release before the `format` field wrote for the same state. */
const format1 = (state: PoolState) => {
  const { format, ...rest } = stored(state);
  expect(format).toBe(POOL_SNAPSHOT_FORMAT);
  return rest;
};

describe('the pool snapshot format', () => {
  it('writes format 2 and reads it back to the same state', () => {
    const state = busyPool();
    const json = stored(state);
    expect(json.format).toBe(2);
    const restored = deserializePool(json)!;
    expect(serializePool(restored)).toEqual(serializePool(state));
    expect(restored.used.runs()).toEqual(state.used.runs());
    expect([...restored.claimed.values()]).toEqual([...state.claimed.values()]);
    expect(deserializePool(stored(PoolAggregate.initialState()))).toEqual(PoolAggregate.initialState());
  });

  it('reads format 1 (no format field) as format 2, its claimed blocks and cooling addresses with it', () => {
    const state = busyPool();
    const restored = deserializePool(format1(state))!;
    expect(restored.cooling.size).toBe(1);
    expect(restored.claimed.size).toBe(2);
    expect(serializePool(restored)).toEqual(serializePool(state));
    expect(deserializePool({ name: 'gone', created: null, ranges: [], holders: [] })).toEqual({
      ...PoolAggregate.initialState(),
      name: 'gone',
    });
  });

  it('reads format 1 taken before blocks and reuse delays, without claimed and cooling, as empty lists', () => {
    const state = busyPool({});
    const { claimed, cooling, ...older } = format1(state);
    expect([claimed, cooling]).toEqual([[], []]);
    const restored = deserializePool(older)!;
    expect(serializePool(restored)).toEqual(serializePool(state));
    expect([restored.claimed.size, restored.cooling.size]).toEqual([0, 0]);
    expect(restored.used.runs()).toEqual(state.used.runs());
    expect(decideAllocate(restored, holder('h-c', 'c')).ip).toBe(decideAllocate(state, holder('h-c', 'c')).ip);
  });

  it('cannot read a format it does not know (a newer release rolled back from): null, for a replay from the start', () => {
    const json = stored(busyPool());
    for (const format of [3, 99, '2', null]) {
      expect(deserializePool({ ...json, format })).toBeNull();
      expect(PoolAggregate.snapshot!.deserialize({ ...json, format })).toBeNull();
    }
  });
});
