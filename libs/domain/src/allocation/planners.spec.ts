import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import fc from 'fast-check';
import { cidrContains, formatIp, parseCidr, type IpAddress } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import { largestFreeRun } from '../pool/free-range-finder';
import { draftPool } from '../pool/pool-draft';
import { parsePoolSpec } from '../pool/pool-spec';
import type { PoolState, PoolView } from '../pool/pool-state';
import { decideAllocate } from '../pool/decide-allocate';
import { decideCreatePool } from '../pool/decide-create-pool';
import { decideRelease } from '../pool/decide-release';
import { decideReserveRange } from '../pool/decide-reserve-range';
import { foldIntoDraft } from '../pool/pool-evolve';
import { PoolAggregate } from '../pool/pool.aggregate';
import { planReservation, reservationOutcome, reservationRefusal, type RangePassedOver } from '../statefulset/plan-reservation';
import {
  allocationRefusal,
  planAllocation,
  poolMayHold,
  type AllocationPlanRequest,
  type LoadedPool,
  type PassedOver,
} from './plan-allocation';

/**
 * The planners against the behaviour they replaced: the loops the allocation and StatefulSet
 * handlers ran themselves (kept here as the reference), over random pools.
 */

const { evolved: apply } = deciderSpecification(PoolAggregate);

const holder = (handle: string) => ({ handle, node: 'n', namespace: 'default', pod: handle, podUid: null });

interface PoolShape {
  family: 4 | 6;
  prefix: number;
  reserved: number[];
  ranges: Array<{ name: string; length: number }>;
  held: number;
  released: number[];
  disabled: boolean;
  deleted: boolean;
}

const poolShape: fc.Arbitrary<PoolShape> = fc.record({
  family: fc.constantFrom<4 | 6>(4, 6),
  prefix: fc.integer({ min: 27, max: 30 }),
  reserved: fc.array(fc.integer({ min: 0, max: 31 }), { maxLength: 3 }),
  ranges: fc.uniqueArray(fc.record({ name: fc.constantFrom('web', 'db', 'cache'), length: fc.integer({ min: 1, max: 6 }) }), {
    maxLength: 2,
    selector: (r) => r.name,
  }),
  held: fc.integer({ min: 0, max: 34 }),
  released: fc.array(fc.integer({ min: 0, max: 34 }), { maxLength: 6 }),
  disabled: fc.boolean(),
  deleted: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});

interface TestPool extends LoadedPool {
  /** the CIDR the pools read model shows (it keeps a deleted pool's until the row goes) */
  cidr: string;
  family: 4 | 6;
  state: PoolState;
}

function cidrOf(index: number, family: 4 | 6, prefix: number): string {
  return family === 4 ? `10.${index}.0.0/${prefix}` : `fd00:${index}::/${prefix + 96}`;
}

function buildPool(index: number, shape: PoolShape): TestPool {
  const name = `p${index}`;
  const cidr = cidrOf(index, shape.family, shape.prefix);
  const first = parseCidr(cidr).network;
  const size = 2 ** (32 - shape.prefix);
  const reserved = [...new Set(shape.reserved.filter((offset) => offset < size))].map((o) =>
    formatIp({ family: shape.family, value: first + BigInt(o) }),
  );
  const empty = PoolAggregate.initialState();
  let state = apply(empty, decideCreatePool(empty, parsePoolSpec({ name, cidr, reserved })));
  for (const range of shape.ranges)
    state = apply(state, decideReserveRange(state, DEFAULT_CLUSTER, 'default', range.name, BigInt(range.length)));
  for (let k = 0; k < shape.held; k++) {
    try {
      state = apply(state, decideAllocate(state, holder(`${name}-h${k}`)).event);
    } catch {
      break;
    }
  }
  for (const k of shape.released) state = apply(state, decideRelease(state, `${name}-h${k}`));
  if (shape.disabled) state = apply(state, { type: 'PoolUpdated', data: { name, disabled: true } });
  if (shape.deleted) state = apply(state, { type: 'PoolDeleted', data: { name } });
  return { name, cidr, family: shape.family, state };
}

const pools = fc.array(poolShape, { minLength: 1, maxLength: 5 }).map((shapes) => shapes.map((shape, i) => buildPool(i, shape)));

/** An address that may be in one of the pools, or outside all of them. */
const requestShape = fc.record({
  family: fc.constantFrom<4 | 6>(4, 6),
  handle: fc.oneof(
    fc.constant('fresh'),
    fc.integer({ min: 0, max: 4 }).chain((p) => fc.integer({ min: 0, max: 10 }).map((k) => `p${p}-h${k}`)),
  ),
  ip: fc.option(fc.record({ pool: fc.integer({ min: 0, max: 5 }), offset: fc.integer({ min: 0, max: 33 }) }), { nil: undefined }),
  statefulSet: fc.option(fc.record({ name: fc.constantFrom('web', 'db'), ordinal: fc.integer({ min: 0, max: 5 }) }), { nil: undefined }),
});

type RequestShape = typeof requestShape extends fc.Arbitrary<infer T> ? T : never;

function requestOf(shape: RequestShape): AllocationPlanRequest {
  const ip = shape.ip && parseCidr(cidrOf(shape.ip.pool, shape.family, 27)).network + BigInt(shape.ip.offset);
  return {
    ...holder(shape.handle),
    family: shape.family,
    ...(ip === undefined ? {} : { ip }),
    ...(shape.statefulSet ? { statefulSet: { namespace: 'default', ...shape.statefulSet } } : {}),
  };
}

type Outcome = { pool: string; ip: bigint; event: unknown } | { error: string; message: string };

/** The allocation handler's own loop before the planner (decideInFamily). */
function referenceAllocation(candidates: TestPool[], request: AllocationPlanRequest): Outcome {
  const PASSED_OVER: Partial<Record<string, string>> = { POOL_EXHAUSTED: 'full', POOL_DISABLED: 'disabled', POOL_NOT_FOUND: 'deleted' };
  const passedOver: string[] = [];
  const ip: IpAddress | undefined = request.ip === undefined ? undefined : { family: request.family, value: request.ip };
  for (const candidate of candidates) {
    if (ip && !cidrContains(parseCidr(candidate.cidr), ip)) continue;
    try {
      const decision = decideAllocate(candidate.state, request);
      return { pool: candidate.name, ip: decision.ip, event: decision.event };
    } catch (err) {
      const why = err instanceof DomainError ? PASSED_OVER[err.code] : undefined;
      if (!why) return { error: (err as DomainError).code, message: (err as Error).message };
      passedOver.push(`${candidate.name} (${why})`);
    }
  }
  if (ip && passedOver.length === 0) {
    return { error: 'IP_NOT_IN_POOL', message: `${formatIp(ip)} is not inside any pool eligible for node "${request.node}"` };
  }
  return { error: 'POOL_EXHAUSTED', message: `no free IPv${request.family} address in the eligible pools: ${passedOver.join(', ')}` };
}

/** The handler's use of the planner: pools filtered by the read model's CIDR, walked in slices of `slice`. */
function planned(candidates: TestPool[], request: AllocationPlanRequest, slice: number): Outcome {
  const mayHold = candidates.filter((c) => poolMayHold(c.cidr, request));
  let passedOver: PassedOver[] = [];
  try {
    for (let i = 0; i < mayHold.length; i += slice) {
      const plan = planAllocation(mayHold.slice(i, i + slice), request, passedOver);
      if (plan.decision) return { pool: plan.decision.pool, ip: plan.decision.ip, event: plan.decision.event };
      passedOver = plan.passedOver;
    }
    throw allocationRefusal(request, passedOver);
  } catch (err) {
    return { error: (err as DomainError).code, message: (err as Error).message };
  }
}

/** Everything a decision could change in a state, as comparable text. */
function fingerprint(state: PoolView): string {
  const snapshot = PoolAggregate.snapshot!.serialize(state as PoolState) as { holders: Array<[string, unknown]> };
  const runs = (set: PoolView['used']) => set.runs().map(([a, b]) => `${a}-${b}`);
  return JSON.stringify({
    // a Map's order follows deletions and re-insertions, which mean nothing to a pool
    snapshot: { ...snapshot, holders: snapshot.holders.sort(([a], [b]) => (a < b ? -1 : 1)) },
    used: runs(state.used),
    held: runs(state.heldSet),
    ranges: runs(state.rangeSet),
    byHandle: [...state.byHandle].map(([h, ip]) => `${h}=${ip}`).sort(),
  });
}

describe('planAllocation', () => {
  it('decides as the handler loop it replaced did, whatever slices the pools come in, and changes no state', () => {
    fc.assert(
      fc.property(pools, requestShape, fc.integer({ min: 1, max: 3 }), (all, shape, slice) => {
        const request = requestOf(shape);
        const candidates = all.filter((pool) => pool.family === request.family);
        const before = all.map((pool) => fingerprint(pool.state));
        expect(planned(candidates, request, slice)).toEqual(referenceAllocation(candidates, request));
        expect(all.map((pool) => fingerprint(pool.state))).toEqual(before);
      }),
      { numRuns: 400 },
    );
  });

  it('refuses, not passes over, in the one pool a StatefulSet ordinal is pinned to', () => {
    const pool = buildPool(0, { family: 4, prefix: 30, reserved: [], ranges: [], held: 0, released: [], disabled: true, deleted: false });
    const request = { ...holder('web-0'), family: 4 as const, ip: parseCidr(pool.cidr).network + 1n, pinned: true };
    expect(() => planAllocation([pool], request)).toThrow(/disabled/);
    expect(planAllocation([pool], { ...request, pinned: false })).toEqual({
      decision: null,
      passedOver: [{ pool: 'p0', reason: 'disabled' }],
    });
  });
});

describe('planReservation', () => {
  /** The StatefulSet handler's own loop before the planner (reserve). */
  function referenceReservation(candidates: TestPool[], replicas: number) {
    const desired = { cluster: DEFAULT_CLUSTER, namespace: 'default', name: 'new', replicas, ordinalsStart: 0 };
    if (replicas === 0) return reservationOutcome(desired, null, null, 'replicas is 0: no range is held');
    let largest: { pool: string; start: string; length: bigint } | null = null;
    for (const candidate of candidates) {
      if (!candidate.state.exists) continue;
      const reserved = decideReserveRange(candidate.state, DEFAULT_CLUSTER, 'default', 'new', BigInt(replicas));
      if (reserved) return reservationOutcome(desired, candidate.name, { start: reserved.data.start, end: reserved.data.end }, null);
      const run = largestFreeRun(candidate.state);
      if (run && (!largest || run.length > largest.length)) {
        largest = { pool: candidate.name, start: formatIp({ family: candidate.family, value: run.start }), length: run.length };
      }
    }
    const reason =
      `no eligible pool has ${replicas} continuous free addresses; ` +
      (largest
        ? `the largest free run is ${largest.length} addresses from ${largest.start} in pool "${largest.pool}"`
        : 'they have no free address');
    return reservationOutcome(desired, null, null, reason);
  }

  it('reserves or explains as the handler loop it replaced did, and changes no state', () => {
    fc.assert(
      fc.property(pools, fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 3 }), (all, replicas, slice) => {
        const desired = { cluster: DEFAULT_CLUSTER, namespace: 'default', name: 'new', replicas, ordinalsStart: 0 };
        const before = all.map((pool) => fingerprint(pool.state));
        let plan = planReservation([], desired);
        let passedOver: RangePassedOver[] = [];
        for (let i = 0; i < all.length && !plan.outcome; i += slice) {
          plan = planReservation(all.slice(i, i + slice), desired, passedOver);
          passedOver = plan.passedOver;
        }
        expect(plan.raced).toBe(false);
        expect(plan.outcome ?? reservationRefusal(desired, passedOver, null)).toEqual(referenceReservation(all, replicas));
        expect(all.map((pool) => fingerprint(pool.state))).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});

describe('draftPool (what a group commit decides on)', () => {
  it('decides a batch exactly as the same requests one at a time, and leaves the state it came from alone', () => {
    const step = fc.record({
      release: fc.boolean(),
      handle: fc.integer({ min: 0, max: 12 }),
      ip: fc.option(fc.integer({ min: 0, max: 33 })),
    });
    fc.assert(
      fc.property(poolShape, fc.array(step, { maxLength: 25 }), (shape, steps) => {
        const shared = buildPool(0, shape);
        const before = fingerprint(shared.state);
        const draft = draftPool(shared.state);
        let alone = buildPool(0, shape).state;
        const first = parseCidr(shared.cidr).network;
        for (const s of steps) {
          const handle = s.handle < 8 ? `fresh-${s.handle}` : `p0-h${s.handle}`;
          const decide = (state: PoolView) => {
            try {
              if (s.release) return decideRelease(state, handle);
              return decideAllocate(state, { ...holder(handle), ...(s.ip === null ? {} : { ip: first + BigInt(s.ip) }) }).event;
            } catch (err) {
              return (err as DomainError).code;
            }
          };
          const inDraft = decide(draft);
          const oneAtATime = decide(alone);
          expect(inDraft).toEqual(oneAtATime);
          if (inDraft && typeof inDraft !== 'string') foldIntoDraft(draft, inDraft);
          if (oneAtATime && typeof oneAtATime !== 'string') alone = apply(alone, oneAtATime);
        }
        expect(fingerprint(draft)).toEqual(fingerprint(alone));
        expect(fingerprint(shared.state)).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * The same planners on pools written out by hand, with every expected address, reason and message
 * written here from the API's documented behaviour, not taken from the planner or a copy of it.
 */
describe('the planners on pools written out by hand', () => {
  const shape = (prefix: number, more: Partial<PoolShape> = {}): PoolShape => ({
    family: 4,
    prefix,
    reserved: [],
    ranges: [],
    held: 0,
    released: [],
    disabled: false,
    deleted: false,
    ...more,
  });
  const request = (ip?: string): AllocationPlanRequest => ({
    ...holder('new'),
    family: 4,
    ...(ip ? { ip: parseCidr(`${ip}/32`).network } : {}),
  });
  const refusal = (candidates: TestPool[], req: AllocationPlanRequest) => {
    const plan = planAllocation(candidates, req);
    expect(plan.decision).toBeNull();
    const err = allocationRefusal(req, plan.passedOver);
    return { code: err.code, message: err.message };
  };
  // 10.0.0.0/30 holds 10.0.0.1 and 10.0.0.2: two holders fill it
  const full = () => buildPool(0, shape(30, { held: 2 }));

  it('takes the lowest free address of the first pool with room, naming the pools passed over', () => {
    const plan = planAllocation([full(), buildPool(1, shape(29, { disabled: true })), buildPool(2, shape(29, { held: 1 }))], request());
    expect(plan.decision).toMatchObject({ pool: 'p2', ip: 0x0a020002n, event: { type: 'IpAllocated', data: { ip: '10.2.0.2' } } });
    expect(plan.passedOver).toEqual([
      { pool: 'p0', reason: 'full' },
      { pool: 'p1', reason: 'disabled' },
    ]);
  });

  it('refuses when every pool is full, disabled or deleted, listing each with its reason', () => {
    expect(refusal([full(), buildPool(1, shape(29, { disabled: true })), buildPool(2, shape(29, { deleted: true }))], request())).toEqual({
      code: 'POOL_EXHAUSTED',
      message: 'no free IPv4 address in the eligible pools: p0 (full), p1 (disabled), p2 (deleted)',
    });
  });

  it('refuses an asked address that no eligible pool contains, naming the node', () => {
    expect(refusal([], request('10.9.0.1'))).toEqual({
      code: 'IP_NOT_IN_POOL',
      message: '10.9.0.1 is not inside any pool eligible for node "n"',
    });
  });

  it('reserves the first continuous run long enough, or says which run was the largest', () => {
    // 10.0.0.0/28: 10.0.0.1-14 usable; five holders take .1-.5, leaving .6-.14, nine addresses
    const pool = buildPool(0, shape(28, { held: 5 }));
    const desired = (replicas: number) => ({ cluster: DEFAULT_CLUSTER, namespace: 'default', name: 'new', replicas, ordinalsStart: 0 });
    expect(planReservation([pool], desired(4)).outcome).toMatchObject({
      pool: 'p0',
      mode: 'continuous',
      range: { start: '10.0.0.6', end: '10.0.0.9' },
      reason: null,
    });
    const refused = planReservation([pool], desired(10));
    expect(refused.outcome).toBeNull();
    expect(reservationRefusal(desired(10), refused.passedOver, null)).toMatchObject({
      pool: null,
      mode: 'dynamic',
      range: null,
      reason: 'no eligible pool has 10 continuous free addresses; the largest free run is 9 addresses from 10.0.0.6 in pool "p0"',
    });
  });
});
