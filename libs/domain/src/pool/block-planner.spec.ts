import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import fc from 'fast-check';
import { formatIp, parseCidr, parseIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { PoolEvent } from '../events';
import { parsePoolSpec } from './pool-spec';
import type { PoolState } from './pool-state';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideReleaseIdleBlocks, decideReleaseNodeBlocks } from './decide-release-blocks';
import { decideReleaseRange } from './decide-release-range';
import { decideReserveRange } from './decide-reserve-range';
import { decideResizePool } from './decide-resize-pool';
import { decideResizeRange } from './decide-resize-range';
import { PoolAggregate } from './pool.aggregate';
import { draftPool } from './pool-draft';

const at = (ms: number) => new Date(ms);

const { evolvedAt } = deciderSpecification(PoolAggregate);
const apply = (state: PoolState, events: Array<PoolEvent | null>, recordedAt = at(0)) => evolvedAt(recordedAt, state, ...events);

function pool(blockAffinity: 'strict' | 'borrow', cidr = '10.0.0.0/24', blockSize = 26, blockReleaseSeconds = 300): PoolState {
  const spec = parsePoolSpec({ name: 'p', cidr, blockSize, blockAffinity, blockReleaseSeconds });
  return apply(PoolAggregate.initialState(), [decideCreatePool(PoolAggregate.initialState(), spec)]);
}

const holder = (handle: string, node: string) => ({ handle, node, namespace: 'default', pod: handle, podUid: null });

/** Allocates one address for `node`: the address, its block claim and whether it is borrowed. */
function allocate(state: PoolState, handle: string, node: string, recordedAt = at(0)) {
  const decision = decideAllocate(state, holder(handle, node));
  const next = apply(state, [decision.claim, decision.event], recordedAt);
  return {
    state: next,
    ip: formatIp({ family: 4, value: decision.ip }),
    claim: decision.claim?.data.cidr ?? null,
    borrowed: decision.event?.data.borrowed ?? false,
  };
}

describe('blocks', () => {
  it('gives 3 nodes of a /24 with blockSize 26 three distinct /26s, and a fourth node the fourth', () => {
    let state = pool('strict');
    const claims: Array<string | null> = [];
    for (const node of ['a', 'b', 'c', 'd']) {
      const result = allocate(state, `h-${node}`, node);
      state = result.state;
      claims.push(result.claim);
    }
    expect(claims).toEqual(['10.0.0.0/26', '10.0.0.64/26', '10.0.0.128/26', '10.0.0.192/26']);
    // a node's second address comes from its own block, with no new claim
    const again = allocate(state, 'h-b2', 'b');
    expect([again.ip, again.claim]).toEqual(['10.0.0.65', null]);
  });

  it('refuses a fifth node under strict with the reason, and lends it an address under borrow', () => {
    for (const affinity of ['strict', 'borrow'] as const) {
      let state = pool(affinity);
      for (const node of ['a', 'b', 'c', 'd']) state = allocate(state, `h-${node}`, node).state;
      if (affinity === 'strict') {
        expect(() => decideAllocate(state, holder('h-e', 'e'))).toThrow(/strict and every free address is in another node's block/);
        try {
          decideAllocate(state, holder('h-e', 'e'));
        } catch (err) {
          expect((err as DomainError).code).toBe('POOL_EXHAUSTED');
        }
      } else {
        const fifth = allocate(state, 'h-e', 'e');
        expect([fifth.ip, fifth.claim, fifth.borrowed]).toEqual(['10.0.0.2', null, true]);
        expect(fifth.state.claimed.get(parseIp('10.0.0.0').value)).toMatchObject({ node: 'a', used: 2, borrowed: 1 });
      }
    }
  });

  it("keeps StatefulSet ranges out of nodes' blocks, and nodes out of blocks holding a range", () => {
    let state = allocate(pool('strict'), 'h-a', 'a').state; // a claims 10.0.0.0/26
    const reserve = (name: string, length: number) => {
      const event = decideReserveRange(state, DEFAULT_CLUSTER, 'default', name, BigInt(length));
      state = apply(state, [event]);
      return event && `${event.data.start}-${event.data.end}`;
    };
    // not 10.0.0.2: that is node a's block, routed to a
    expect(reserve('web', 4)).toBe('10.0.0.64-10.0.0.67');
    // the next node passes over the block holding the range
    const b = allocate(state, 'h-b', 'b');
    state = b.state;
    expect(b.claim).toBe('10.0.0.128/26');
    // a range that fits one block comes out of one: the rest of web's block, not across into the next
    expect(reserve('db', 60)).toBe('10.0.0.68-10.0.0.127');
    expect(reserve('cache', 10)).toBe('10.0.0.192-10.0.0.201');
    // a range grows only into addresses outside nodes' blocks: 10.0.0.128 is free, but in b's block
    state = apply(state, [decideRelease(state, 'h-b')]);
    expect(state.claimed.get(parseIp('10.0.0.128').value)).toMatchObject({ node: 'b', used: 0 });
    expect(decideResizeRange(state, DEFAULT_CLUSTER, 'default', 'db', 61n)).toBeNull();
    // one longer than a block takes consecutive unclaimed blocks, and none is left here
    expect(reserve('big', 65)).toBeNull();
    // an address asked for in a block holding a range: refused under strict, borrowed (no claim) under borrow
    const asked = { ...holder('h-c', 'c'), ip: parseIp('10.0.0.210').value };
    expect(() => decideAllocate(state, asked)).toThrow(/10.0.0.210 is in block 10.0.0.192\/26 holding a StatefulSet range or ip-set/);
    const lenient = { ...state, blocks: { ...state.blocks!, blockAffinity: 'borrow' as const } };
    const borrowed = decideAllocate(lenient, asked);
    expect([borrowed.claim, borrowed.event?.data.borrowed]).toEqual([null, true]);
  });

  it('releases an emptied block after blockReleaseSeconds of event time, and not before', () => {
    let state = pool('strict', '10.0.0.0/24', 26, 300);
    state = allocate(state, 'h-a', 'a', at(1_000)).state;
    state = apply(state, [decideRelease(state, 'h-a')], at(10_000));
    expect(state.claimed.get(parseIp('10.0.0.0').value)).toMatchObject({ used: 0, emptiedAt: 10_000 });
    expect(decideReleaseIdleBlocks(state, 10_000 + 299_999)).toEqual([]);
    const released = decideReleaseIdleBlocks(state, 10_000 + 300_000);
    expect(released.map((e) => e.data)).toEqual([
      { pool: 'p', cidr: '10.0.0.0/26', node: 'a', reason: 'idle', emptiedAt: new Date(10_000).toISOString() },
    ]);
    expect(apply(state, released).claimed.size).toBe(0);
  });

  it('keeps a block with an address in it, and a block emptied in a draft (no recorded time yet)', () => {
    let state = pool('borrow', '10.0.0.0/24', 26, 0);
    state = allocate(state, 'h-a', 'a').state;
    expect(decideReleaseIdleBlocks(state, 1e15)).toEqual([]);
    const draft = draftPool(state);
    PoolAggregate.evolve(draft, { ...decideRelease(draft, 'h-a')!, version: 0 });
    expect(decideReleaseIdleBlocks(draft, 1e15)).toEqual([]);
    // the draft never touched the state it came from
    expect(state.claimed.get(0x0a000000n)?.used).toBe(1);
  });

  it("releases a deleted node's empty blocks only", () => {
    let state = pool('borrow');
    state = allocate(state, 'h-a1', 'a').state;
    for (let i = 0; i < 63; i++) state = allocate(state, `h-a-${i}`, 'a').state;
    // a's first block is full (62 usable: network address excluded, 64 requests): the second holds two
    expect([...state.claimed.values()].map((b) => [b.node, b.used])).toEqual([
      ['a', 63],
      ['a', 1],
    ]);
    state = apply(state, [decideRelease(state, 'h-a-62')]);
    expect(decideReleaseNodeBlocks(state, DEFAULT_CLUSTER, 'a').map((e) => e.data.cidr)).toEqual(['10.0.0.64/26']);
    expect(decideReleaseNodeBlocks(state, DEFAULT_CLUSTER, 'b')).toEqual([]);
  });

  it('survives a snapshot: blocks, their counts and since when they are empty', () => {
    let state = pool('borrow');
    state = allocate(state, 'h-a', 'a').state;
    state = allocate(state, 'h-b', 'b').state;
    state = apply(state, [decideRelease(state, 'h-b')], at(5_000));
    const snapshot = PoolAggregate.snapshot!;
    const restored = snapshot.deserialize(JSON.parse(JSON.stringify(snapshot.serialize(state))))!;
    expect([...restored.claimed.values()]).toEqual([...state.claimed.values()]);
    expect(restored.blocks).toEqual(state.blocks);
  });

  it('keeps blocks across a grow (the new space adds free blocks) and refuses a shrink that cuts a block off', () => {
    let state = pool('strict');
    for (const node of ['a', 'b', 'c', 'd']) state = allocate(state, `h-${node}`, node).state;
    state = apply(state, [decideResizePool(state, 'p', parseCidr('10.0.0.0/23'))]);
    const fifth = allocate(state, 'h-e', 'e');
    expect([fifth.claim, fifth.ip]).toEqual(['10.0.1.0/26', '10.0.1.0']);
    expect([...fifth.state.claimed.values()].map((b) => b.node)).toEqual(['a', 'b', 'c', 'd', 'e']);
    state = apply(fifth.state, [decideRelease(fifth.state, 'h-e')]);
    // e's block is empty but still claimed: the shrink back waits for its release
    expect(() => decideResizePool(state, 'p', parseCidr('10.0.0.0/24'))).toThrow(/block 10.0.1.0\/26 of node "e" lies outside/);
    state = apply(state, decideReleaseNodeBlocks(state, DEFAULT_CLUSTER, 'e'));
    expect(decideResizePool(state, 'p', parseCidr('10.0.0.0/24'))?.data.cidr).toBe('10.0.0.0/24');
    expect(() => decideResizePool(state, 'p', parseCidr('10.0.0.0/26'))).toThrow(/from \/10 to \/25/);
  });

  it('refuses a blockSize not longer than the pool, or one making more than 2^16 blocks', () => {
    expect(() => parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', blockSize: 24 })).toThrow(/from 25 to 32/);
    expect(() => parsePoolSpec({ name: 'p', cidr: 'fd00::/64', blockSize: 122 })).toThrow(/from 65 to 80/);
    expect(() => parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', blockAffinity: 'strict' })).toThrow(/need blockSize/);
    expect(parsePoolSpec({ name: 'p', cidr: 'fd00::/112', blockSize: 122 })).toMatchObject({
      blockSize: 122,
      blockAffinity: 'borrow',
      blockReleaseSeconds: 300,
    });
  });
});

/**
 * The planner against an independent model: a list of blocks with an owner and a set of held
 * offsets, with the rules of issue 24 written out directly (own block first, lowest; else the lowest
 * unclaimed block; else borrow the lowest free address, or refuse under strict).
 */
describe('block planner (property)', () => {
  interface Model {
    owner: Array<string | null>;
    held: Map<number, { node: string; handle: string }>;
    /** StatefulSet ranges by name: first and last offset */
    ranges: Map<string, [number, number]>;
  }
  const BLOCK = 8; // /29 blocks of a /27: 4 blocks
  const usable = (i: number) => i !== 0 && i !== 31; // IPv4 network and broadcast
  const inRange = (m: Model, i: number) => [...m.ranges.values()].some(([first, last]) => i >= first && i <= last);
  const free = (m: Model, b: number) =>
    [...Array(BLOCK).keys()].map((k) => b * BLOCK + k).filter((i) => usable(i) && !m.held.has(i) && !inRange(m, i));
  const holdsRange = (m: Model, b: number) => [...Array(BLOCK).keys()].some((k) => inRange(m, b * BLOCK + k));

  function modelAllocate(
    m: Model,
    node: string,
    strict: boolean,
  ): { offset: number; claim: number | null; borrowed: boolean } | 'exhausted' {
    for (let b = 0; b < m.owner.length; b++)
      if (m.owner[b] === node && free(m, b).length) return { offset: free(m, b)[0], claim: null, borrowed: false };
    for (let b = 0; b < m.owner.length; b++)
      if (m.owner[b] === null && !holdsRange(m, b) && free(m, b).length) return { offset: free(m, b)[0], claim: b, borrowed: false };
    if (strict) return 'exhausted';
    for (let b = 0; b < m.owner.length; b++) if (free(m, b).length) return { offset: free(m, b)[0], claim: null, borrowed: true };
    return 'exhausted';
  }

  /** A StatefulSet range: in one unclaimed block when it fits one, else across unclaimed blocks; lowest first. */
  function modelRange(m: Model, length: number): number | null {
    const open = (i: number) => usable(i) && !m.held.has(i) && !inRange(m, i) && m.owner[Math.floor(i / BLOCK)] === null;
    const fits = (s: number) => s + length - 1 < BLOCK * m.owner.length && [...Array(length).keys()].every((k) => open(s + k));
    const starts = [...Array(BLOCK * m.owner.length).keys()];
    const inOne = starts.find((s) => fits(s) && Math.floor(s / BLOCK) === Math.floor((s + length - 1) / BLOCK));
    return (length <= BLOCK ? inOne : undefined) ?? starts.find(fits) ?? null;
  }

  type Step =
    | { kind: 'range'; length: number }
    | { kind: 'unrange'; pick: number }
    | { kind: 'alloc'; node: string }
    | { kind: 'release'; pick: number }
    | { kind: 'sweep' }
    | { kind: 'delete-node'; node: string };
  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('alloc' as const), node: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f') }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('range' as const), length: fc.integer({ min: 1, max: 12 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('unrange' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete-node' as const), node: fc.constantFrom('a', 'b', 'c') }) },
  );

  it("places every address and StatefulSet range where the model does: no block to two nodes, no range in a node's block", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(step, { maxLength: 60 }), (strict, steps) => {
        const base = parseCidr('10.0.0.0/27').network;
        let state = pool(strict ? 'strict' : 'borrow', '10.0.0.0/27', 29, 0);
        const m: Model = { owner: [null, null, null, null], held: new Map(), ranges: new Map() };
        let n = 0;
        for (const s of steps) {
          if (s.kind === 'alloc') {
            const expected = modelAllocate(m, s.node, strict);
            const handle = `h${n++}`;
            if (expected === 'exhausted') {
              expect(() => decideAllocate(state, holder(handle, s.node))).toThrow(DomainError);
              continue;
            }
            const d = decideAllocate(state, holder(handle, s.node));
            expect(Number(d.ip - base)).toBe(expected.offset);
            expect(d.claim ? Number(parseCidr(d.claim.data.cidr).network - base) / BLOCK : null).toBe(expected.claim);
            expect(d.event!.data.borrowed ?? false).toBe(expected.borrowed);
            if (expected.claim !== null) m.owner[expected.claim] = s.node;
            m.held.set(expected.offset, { node: s.node, handle });
            state = apply(state, [d.claim, d.event]);
          } else if (s.kind === 'range') {
            const name = `r${n++}`;
            const expected = modelRange(m, s.length);
            const reserved = decideReserveRange(state, DEFAULT_CLUSTER, 'default', name, BigInt(s.length));
            expect(reserved && Number(parseIp(reserved.data.start).value - base)).toBe(expected);
            if (expected !== null) m.ranges.set(name, [expected, expected + s.length - 1]);
            state = apply(state, [reserved]);
          } else if (s.kind === 'unrange') {
            if (m.ranges.size === 0) continue;
            const [name] = [...m.ranges.keys()][s.pick % m.ranges.size];
            m.ranges.delete(name);
            state = apply(state, [decideReleaseRange(state, DEFAULT_CLUSTER, 'default', name)]);
          } else if (s.kind === 'release') {
            if (m.held.size === 0) continue;
            const [offset, { handle }] = [...m.held][s.pick % m.held.size];
            m.held.delete(offset);
            state = apply(state, [decideRelease(state, handle)]);
          } else {
            const events = s.kind === 'sweep' ? decideReleaseIdleBlocks(state, 0) : decideReleaseNodeBlocks(state, DEFAULT_CLUSTER, s.node);
            for (let b = 0; b < m.owner.length; b++) {
              const empty = m.owner[b] !== null && ![...m.held.keys()].some((o) => Math.floor(o / BLOCK) === b);
              if (empty && (s.kind === 'sweep' || m.owner[b] === s.node)) m.owner[b] = null;
            }
            state = apply(state, events);
          }
          // the aggregate's blocks are exactly the model's, with the model's counts
          const blocks = [...state.claimed.values()].map((b) => [Number(b.first - base) / BLOCK, b.node, b.used, b.borrowed]).sort();
          const modelled = m.owner.flatMap((owner, b) => {
            if (owner === null) return [];
            const inside = [...m.held].filter(([o]) => Math.floor(o / BLOCK) === b);
            return [[b, owner, inside.length, inside.filter(([, h]) => h.node !== owner).length]];
          });
          expect(blocks).toEqual(modelled);
        }
      }),
      { numRuns: 300 },
    );
  });
});
