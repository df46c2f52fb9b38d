import { deciderSpecification } from '../../../../test/support/decider-specification';
import fc from 'fast-check';
import { DomainError } from '../errors/domain-error';
import type { PoolEvent } from '../events';
import { parsePoolSpec } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { PoolAggregate } from './pool.aggregate';
import type { PoolState } from './pool-state';

/**
 * Model test of the reuse delay on 10.0.0.0/29 (usable .1 to .6; a small pool, so that often only cooling addresses are left): random allocations, releases,
 * requests for a named address and clock steps, each event recorded at the decision's time. The
 * model keeps, per address, when it was last released: an address is cooling while
 * released + delay > now. The aggregate must never hand out a cooling address unasked, must refuse
 * exactly when only cooling addresses are free, say how many and when the first is free again, and
 * a replay of the log and a snapshot restored from JSON must decide alike.
 */
const BASE = 0x0a000000n; // 10.0.0.0
const USABLE = [1, 2, 3, 4, 5, 6];
const HANDLES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
/** how often a run met a pool with only cooling addresses left: the case the delay is about */
let onlyCoolingLeft = 0;

type Command =
  | { kind: 'allocate'; handle: string }
  | { kind: 'allocateIp'; handle: string; octet: number }
  | { kind: 'release'; handle: string }
  | { kind: 'wait'; ms: number };

const handle = fc.constantFrom(...HANDLES);
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: handle.map((h) => ({ kind: 'allocate' as const, handle: h })) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('allocateIp' as const), handle, octet: fc.constantFrom(...USABLE) }) },
  { weight: 3, arbitrary: handle.map((h) => ({ kind: 'release' as const, handle: h })) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 1500 }).map((ms) => ({ kind: 'wait' as const, ms })) },
);

class Model {
  readonly held = new Map<string, number>();
  readonly releasedAt = new Map<number, number>();
  constructor(readonly delayMs: number) {}

  cooling(now: number): number[] {
    const taken = new Set(this.held.values());
    return USABLE.filter((o) => !taken.has(o) && (this.releasedAt.get(o) ?? -Infinity) + this.delayMs > now);
  }

  fresh(now: number): number[] {
    const taken = new Set(this.held.values());
    return USABLE.filter((o) => !taken.has(o) && !this.cooling(now).includes(o));
  }
}

const octetOf = (ip: bigint) => Number(ip - BASE);
const { evolvedAt } = deciderSpecification(PoolAggregate);
const restore = (state: PoolState) =>
  PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(state))))!;

type Outcome = { octet: number; event: PoolEvent | null } | { code: string; message: string } | { released: PoolEvent | null };

function run(state: PoolState, cmd: Exclude<Command, { kind: 'wait' }>, now: number): [PoolState, Outcome] {
  if (cmd.kind === 'release') {
    const event = decideRelease(state, cmd.handle);
    return [evolvedAt(new Date(now), state, event), { released: event }];
  }
  try {
    const requested = cmd.kind === 'allocateIp' ? BASE + BigInt(cmd.octet) : undefined;
    const holder = { handle: cmd.handle, node: 'n', namespace: 'ns', pod: cmd.handle, podUid: null };
    const { ip, event } = decideAllocate(state, { ...holder, ip: requested, now });
    return [evolvedAt(new Date(now), state, event), { octet: octetOf(ip), event }];
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return [state, { code: err.code, message: err.message }];
  }
}

it('never hands out a cooling address unasked, refuses exactly when only cooling ones are free, and replays alike', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 3 }),
      fc.array(command, { minLength: 1, maxLength: 80, size: 'max' }),
      fc.nat({ max: 60 }),
      (delay, commands, snapshotAt) => {
        let now = 1_700_000_000_000;
        const empty = PoolAggregate.initialState();
        const created = decideCreatePool(empty, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/29', reuseDelaySeconds: delay }));
        let live = evolvedAt(new Date(now), empty, created);
        let restored = restore(live);
        const log: Array<{ event: PoolEvent; at: number }> = [{ event: created, at: now }];
        const model = new Model(delay * 1000);
        commands.forEach((cmd, i) => {
          if (cmd.kind === 'wait') {
            now += cmd.ms;
            return;
          }
          if (i === snapshotAt) restored = restore(restored);
          const fresh = model.fresh(now);
          const cooling = model.cooling(now);
          const held = model.held.get(cmd.handle);
          let outcome: Outcome;
          [live, outcome] = run(live, cmd, now);
          let again: Outcome;
          [restored, again] = run(restored, cmd, now);
          expect(again).toEqual(outcome);
          const appended = 'event' in outcome ? outcome.event : 'released' in outcome ? outcome.released : null;
          if (appended) log.push({ event: appended, at: now });

          if (cmd.kind === 'release') {
            if (held !== undefined) {
              model.held.delete(cmd.handle);
              model.releasedAt.set(held, now);
            }
            expect(outcome).toEqual({ released: held === undefined ? null : expect.objectContaining({ type: 'IpReleased' }) });
            return;
          }
          if (held !== undefined) return expect(outcome).toEqual({ octet: held, event: null });
          if (cmd.kind === 'allocateIp') {
            // a named address is exempt from the delay
            const taken = [...model.held.values()].includes(cmd.octet);
            if (taken) return expect(outcome).toMatchObject({ code: 'IP_IN_USE' });
            expect(outcome).toMatchObject({ octet: cmd.octet });
            model.held.set(cmd.handle, cmd.octet);
            return;
          }
          if (fresh.length === 0) {
            expect(outcome).toMatchObject({ code: 'POOL_EXHAUSTED' });
            const message = (outcome as { message: string }).message;
            if (cooling.length > 0) {
              onlyCoolingLeft++;
              const first = Math.min(...cooling.map((o) => model.releasedAt.get(o)!)) + delay * 1000;
              expect(message).toContain(`${cooling.length} address(es) cooling down`);
              expect(message).toContain(`the first free again at ${new Date(first).toISOString()}`);
            }
            return;
          }
          expect(outcome).toHaveProperty('octet');
          const octet = (outcome as { octet: number }).octet;
          expect(fresh).toContain(octet);
          model.held.set(cmd.handle, octet);
        });
        // the log replayed from the start decides as the live state does
        const replayed = log.reduce((state, { event, at }) => evolvedAt(new Date(at), state, event), PoolAggregate.initialState());
        expect(summary(replayed)).toEqual(summary(live));
        expect(summary(restore(live))).toEqual(summary(live));
      },
    ),
    { numRuns: 300 },
  );
  expect(onlyCoolingLeft).toBeGreaterThan(50);
});

function summary(state: PoolState) {
  return {
    holders: [...state.holders].map(([ip, h]) => [octetOf(ip), h.handle]).sort(),
    cooling: state.cooling.inOrder().map(([ip, at]) => [octetOf(ip), at]),
    used: USABLE.filter((o) => state.used.has(BASE + BigInt(o))),
  };
}
