import { deciderSpecification } from '../../../../test/support/decider-specification';
import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { DomainError } from '../errors/domain-error';
import type { PoolEvent } from '../events';
import { parsePoolSpec } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideUpdatePool } from './decide-update-pool';
import { poolCounts } from './pool-counts';
import { PoolAggregate } from './pool.aggregate';
import type { PoolState } from './pool-state';

/**
 * Model test: random command sequences on 10.0.0.0/28, decided and folded, against a naive model
 * (a Map handle → last octet, lowest free first). A second state, rebuilt from a JSON round trip of
 * its own snapshot at random points, must answer every command exactly as the live one.
 */
const BASE = 0x0a000000n; // 10.0.0.0
// Overlapping entries, and entries over network (.0) and broadcast (.15): usable reserved = {1,2,5,6,7}.
const RESERVED = ['10.0.0.0-10.0.0.2', '10.0.0.5-10.0.0.6', '10.0.0.6-10.0.0.7', '10.0.0.15'];
const RESERVED_USABLE = new Set([1, 2, 5, 6, 7]);
const USABLE = Array.from({ length: 14 }, (_, i) => i + 1);
const HANDLES = Array.from({ length: 12 }, (_, i) => `h${i}`); // more handles than the 9 free addresses

type Command =
  | { kind: 'allocate'; handle: string }
  | { kind: 'allocateIp'; handle: string; octet: number }
  | { kind: 'release'; handle: string }
  | { kind: 'disable'; disabled: boolean };

const handle = fc.constantFrom(...HANDLES);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: handle.map((h) => ({ kind: 'allocate' as const, handle: h })) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('allocateIp' as const), handle, octet: fc.integer({ min: 0, max: 15 }) }) },
  { weight: 3, arbitrary: handle.map((h) => ({ kind: 'release' as const, handle: h })) },
  { weight: 1, arbitrary: fc.constantFrom(true, false, false).map((disabled) => ({ kind: 'disable' as const, disabled })) },
);

/** What a command answers: an address and whether it appended an event, or an error. */
type Outcome = { ip: string | null; event: PoolEvent | null } | { code: string; message: string };
/** The model names, instead of a whole error message, a text the message must contain. */
type Expected = { ip: string | null; event: PoolEvent | null } | { code: string; mentions: string };

class Model {
  held = new Map<string, number>();
  disabled = false;

  run(cmd: Command): Expected {
    const ip = (octet: number) => `10.0.0.${octet}`;
    if (cmd.kind === 'disable') {
      const changed = cmd.disabled !== this.disabled;
      this.disabled = cmd.disabled;
      return { ip: null, event: changed ? { type: 'PoolUpdated', data: { name: 'p', disabled: cmd.disabled } } : null };
    }
    const held = this.held.get(cmd.handle);
    if (cmd.kind === 'release') {
      if (held === undefined) return { ip: null, event: null };
      this.held.delete(cmd.handle);
      return {
        ip: null,
        event: {
          type: 'IpReleased',
          data: { pool: 'p', ip: ip(held), handle: cmd.handle, node: 'node-a', namespace: 'ns', pod: `pod-${cmd.handle}` },
        },
      };
    }
    if (held !== undefined) return { ip: ip(held), event: null };
    if (this.disabled) return { code: 'POOL_DISABLED', mentions: 'pool "p"' };
    const taken = new Set(this.held.values());
    let octet: number;
    if (cmd.kind === 'allocateIp') {
      octet = cmd.octet;
      const holder = [...this.held].find(([, o]) => o === octet)?.[0];
      if (!USABLE.includes(octet)) return { code: 'IP_NOT_IN_POOL', mentions: ip(octet) };
      if (RESERVED_USABLE.has(octet)) return { code: 'IP_RESERVED', mentions: ip(octet) };
      if (holder) return { code: 'IP_IN_USE', mentions: `"${holder}"` };
    } else {
      const free = USABLE.find((o) => !RESERVED_USABLE.has(o) && !taken.has(o));
      if (free === undefined) return { code: 'POOL_EXHAUSTED', mentions: 'pool "p"' };
      octet = free;
    }
    this.held.set(cmd.handle, octet);
    const data = {
      pool: 'p',
      ip: ip(octet),
      family: 4,
      handle: cmd.handle,
      node: 'node-a',
      namespace: 'ns',
      pod: `pod-${cmd.handle}`,
      podUid: null,
      owner: 'external',
    };
    return { ip: ip(octet), event: { type: 'IpAllocated', data } as PoolEvent };
  }
}

const { evolved: fold } = deciderSpecification(PoolAggregate);

function run(state: PoolState, cmd: Command): [PoolState, Outcome] {
  try {
    if (cmd.kind === 'disable') {
      const event = decideUpdatePool(state, 'p', { disabled: cmd.disabled });
      return [fold(state, event), { ip: null, event }];
    }
    if (cmd.kind === 'release') {
      const event = decideRelease(state, cmd.handle);
      return [fold(state, event), { ip: null, event }];
    }
    const { ip, event } = decideAllocate(state, {
      handle: cmd.handle,
      node: 'node-a',
      namespace: 'ns',
      pod: `pod-${cmd.handle}`,
      podUid: null,
      ...(cmd.kind === 'allocateIp' ? { ip: BASE + BigInt(cmd.octet) } : {}),
    });
    const text = `10.0.0.${Number(ip - BASE)}`;
    if (event) expect(event.data.ip).toBe(text);
    return [fold(state, event), { ip: text, event }];
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return [state, { code: error.code, message: error.message }];
  }
}

const OCTETS = Array.from({ length: 16 }, (_, octet) => octet);

/** What the aggregate holds, in model terms; holders must be the exact inverse of byHandle. */
function summary(state: PoolState) {
  return {
    byHandle: [...state.byHandle].map(([h, address]) => [h, Number(address - BASE)]).sort(),
    holders: [...state.holders].map(([address, holder]) => [holder.handle, Number(address - BASE)]).sort(),
    disabled: state.disabled,
    counts: poolCounts(state),
    used: OCTETS.filter((octet) => state.used.has(BASE + BigInt(octet))),
  };
}

function modelSummary(model: Model): ReturnType<typeof summary> {
  const allocated = BigInt(model.held.size);
  const reservedCount = BigInt(RESERVED_USABLE.size);
  const byHandle = [...model.held].sort();
  return {
    byHandle,
    holders: byHandle,
    disabled: model.disabled,
    counts: { capacity: 14n, allocated, reservedCount, rangeReservedCount: 0n, free: 14n - allocated - reservedCount },
    // used = reserved ∪ held, exactly.
    used: OCTETS.filter((octet) => RESERVED_USABLE.has(octet) || [...model.held.values()].includes(octet)),
  };
}

/** An error outcome in the model's terms: the code, and the mentioned text if the message has it. */
function normalize(outcome: Outcome, expected: Expected): Outcome | Expected {
  if (!('code' in outcome) || !('mentions' in expected)) return outcome;
  return { code: outcome.code, mentions: outcome.message.includes(expected.mentions) ? expected.mentions : outcome.message };
}

/** toEqual is slow in this hot loop; it only runs to report a difference. */
function same(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
}

const restore = (state: PoolState) =>
  PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(state))))!;

it('decide + evolve behaves like the naive model, and snapshots restore an identical aggregate', () => {
  fc.assert(
    fc.property(
      fc.array(command, { minLength: 1, maxLength: 80, size: 'max' }),
      fc.array(fc.nat({ max: 80 }), { maxLength: 4 }),
      (commands, snapshotAt) => {
        const empty = PoolAggregate.initialState();
        let live = fold(empty, decideCreatePool(empty, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/28', reserved: RESERVED })));
        let restored = restore(live);
        const model = new Model();
        commands.forEach((cmd, i) => {
          if (snapshotAt.includes(i)) restored = restore(restored);
          const expected = model.run(cmd);
          let liveOutcome: Outcome, restoredOutcome: Outcome;
          [live, liveOutcome] = run(live, cmd);
          [restored, restoredOutcome] = run(restored, cmd);
          same(
            { live: normalize(liveOutcome, expected), restored: normalize(restoredOutcome, expected) },
            { live: expected, restored: expected },
          );
          const want = modelSummary(model);
          same({ live: summary(live), restored: summary(restored) }, { live: want, restored: want });
        });
      },
    ),
    { numRuns: 300 },
  );
});

it('snapshots the same state the same, however it was drafted: event by event (as the cache folds) or all at once (as replay --verify folds)', () => {
  fc.assert(
    fc.property(fc.array(command, { minLength: 1, maxLength: 80, size: 'max' }), (commands) => {
      const empty = PoolAggregate.initialState();
      const createdEvent = decideCreatePool(empty, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/28', reserved: RESERVED }));
      let live = fold(empty, createdEvent);
      const events: PoolEvent[] = [createdEvent];
      for (const cmd of commands) {
        const [next, outcome] = run(live, cmd);
        live = next;
        if ('event' in outcome && outcome.event) events.push(outcome.event);
      }
      const atOnce = PoolAggregate.fold!(
        empty,
        events.map((event, i) => ({ ...event, version: i + 1 })),
      );
      same(PoolAggregate.snapshot!.serialize(live), PoolAggregate.snapshot!.serialize(atOnce));
    }),
    { numRuns: 300 },
  );
});
