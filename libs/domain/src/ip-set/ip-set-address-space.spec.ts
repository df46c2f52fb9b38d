import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import { formatIp, parseCidr, parseIp } from '@ipledger/ip';
import { parsePoolSpec, type PoolSpecInput } from '../pool/pool-spec';
import type { PoolState } from '../pool/pool-state';
import { decideAllocate } from '../pool/decide-allocate';
import { decideCreatePool } from '../pool/decide-create-pool';
import { decideRelease } from '../pool/decide-release';
import { decideReleaseRange } from '../pool/decide-release-range';
import { decideResizePool } from '../pool/decide-resize-pool';
import { PoolAggregate } from '../pool/pool.aggregate';
import { ipSetRangeName, type IpSetRef, type IpSetWanted } from './ip-set';
import { planIpSetAllocation } from './plan-ip-set-allocation';

/**
 * Issue 24's address-space rules hold for ip-sets as for StatefulSet ranges: blocks, the reuse
 * delay and a shrink. Each pod goes through planIpSetAllocation, the path the API takes.
 */
const { evolvedAt } = deciderSpecification(PoolAggregate);
const at = (ms: number) => new Date(ms);
const ip = (text: string) => parseIp(text).value;
const text = (value: bigint) => formatIp({ family: 4, value });

const pool = (input: Omit<PoolSpecInput, 'name'>) => {
  const empty = PoolAggregate.initialState();
  return evolvedAt(at(0), empty, decideCreatePool(empty, parsePoolSpec({ name: 'p', ...input })));
};
const web: IpSetRef = { namespace: 'ns', kind: 'Deployment', name: 'web' };
const holder = (handle: string, node = 'n') => ({ handle, node, namespace: 'ns', pod: handle, podUid: null });

/** A pod of `ref`'s workload takes its address (reserving the set first when the pool has none): the events, folded at `now`. */
function setPod(state: PoolState, handle: string, wanted: IpSetWanted, ref = web, now = 0) {
  const { decision, passedOver } = planIpSetAllocation({ name: 'p', state }, { ...holder(handle), family: 4, ipSet: ref, now }, wanted);
  if (!decision) return { state, ip: null, events: [], passedOver };
  return { state: evolvedAt(at(now), state, ...decision.events), ip: text(decision.ip), events: decision.events, passedOver };
}

/** A pod with no set takes an address on `node`: in a pool with blocks, from its block. */
function plainPod(state: PoolState, handle: string, node: string, now = 0) {
  const { event, claim } = decideAllocate(state, { ...holder(handle, node), now });
  return evolvedAt(at(now), state, claim, event);
}

const rangeOf = (state: PoolState, ref: IpSetRef) => {
  const range = state.ranges.get(`${ref.namespace}/${ipSetRangeName(ref)}`);
  return range && `${text(range.start)}-${text(range.end)}`;
};

describe('ip-sets in a pool with blocks', () => {
  it("come out of one unclaimed block when they fit, else across unclaimed blocks, never a node's block; no node claims theirs", () => {
    let state = plainPod(pool({ cidr: '10.0.0.0/24', blockSize: 26, blockAffinity: 'strict' }), 'a1', 'a'); // a: 10.0.0.0/26
    // not 10.0.0.2: that is node a's block; the set is a range, and its first pod claims no block
    const first = setPod(state, 'web-1', { size: 4 });
    expect(first.events.map((e) => e.type)).toEqual(['RangeReserved', 'IpAllocated']);
    expect([rangeOf(first.state, web), first.ip]).toEqual(['10.0.0.64-10.0.0.67', '10.0.0.64']);
    state = first.state;
    // the next node passes over the block holding the set
    state = plainPod(state, 'b1', 'b');
    expect([...state.claimed.values()].map((block) => [text(block.first), block.node])).toEqual([
      ['10.0.0.0', 'a'],
      ['10.0.0.128', 'b'],
    ]);
    // a set that fits one block takes the rest of the set's block, not the lowest free run across blocks
    const api = { ...web, name: 'api' };
    state = setPod(state, 'api-1', { size: 60 }, api).state;
    expect(rangeOf(state, api)).toBe('10.0.0.68-10.0.0.127');
    // one longer than a block needs consecutive unclaimed blocks: only 10.0.0.192/26 is left, 63 usable below the broadcast address
    const big = { ...web, name: 'big' };
    expect(setPod(state, 'big-1', { size: 65 }, big).passedOver).toEqual([
      { pool: 'p', reason: 'full', why: 'largest free run 63 from 10.0.0.192' },
    ]);
    // a set named by its addresses may not lie in a node's block either
    expect(
      setPod(state, 'fixed-1', { first: parseIp('10.0.0.130'), last: parseIp('10.0.0.131') }, { ...web, name: 'fixed' }).ip,
    ).toBeNull();
  });

  it('take consecutive unclaimed blocks for a set longer than one, and leave them to no node', () => {
    let state = plainPod(pool({ cidr: '10.0.0.0/24', blockSize: 26, blockAffinity: 'strict' }), 'a1', 'a');
    state = setPod(state, 'web-1', { size: 100 }).state;
    expect(rangeOf(state, web)).toBe('10.0.0.64-10.0.0.163');
    state = plainPod(state, 'b1', 'b');
    expect(state.claimed.get(ip('10.0.0.192'))?.node).toBe('b');
    expect(() => plainPod(state, 'c1', 'c')).toThrow(expect.objectContaining({ code: 'POOL_EXHAUSTED' }));
  });
});

describe('ip-sets and the reuse delay', () => {
  it("give a released set address back to the workload's next pod at once, while an address outside any set cools", () => {
    let state = pool({ cidr: '10.0.0.0/24', reuseDelaySeconds: 60 });
    state = setPod(state, 'web-1', { size: 2 }, web, 1_000).state; // the set 10.0.0.1-.2; web-1 takes .1
    state = plainPod(state, 'other', 'n', 1_000); // .3
    state = evolvedAt(at(2_000), state, decideRelease(state, 'web-1'), decideRelease(state, 'other'));
    expect([...state.cooling.keys()].map(text)).toEqual(['10.0.0.3']);
    expect(setPod(state, 'web-2', { size: 2 }, web, 3_000).ip).toBe('10.0.0.1');
  });
});

describe('ip-sets and a shrink', () => {
  it("refuse a shrink with POOL_IN_USE while an address outside is in a set, held or not; accept it once the set's range is released", () => {
    let state = pool({ cidr: '10.0.0.0/24' });
    const wanted = { first: parseIp('10.0.0.200'), last: parseIp('10.0.0.203') };
    state = setPod(state, 'web-1', wanted).state;
    state = evolvedAt(at(0), state, decideRelease(state, 'web-1'));
    expect(state.holders.size).toBe(0);
    expect(() => decideResizePool(state, 'p', parseCidr('10.0.0.0/25'))).toThrow(
      expect.objectContaining({
        code: 'POOL_IN_USE',
        message: expect.stringContaining('10.0.0.200 is in the range of the ip-set of Deployment ns/web'),
      }),
    );
    state = evolvedAt(at(0), state, decideReleaseRange(state, DEFAULT_CLUSTER, web.namespace, ipSetRangeName(web)));
    expect(decideResizePool(state, 'p', parseCidr('10.0.0.0/25'))?.data).toEqual({
      name: 'p',
      previousCidr: '10.0.0.0/24',
      cidr: '10.0.0.0/25',
    });
  });
});
