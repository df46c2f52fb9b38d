import { DomainError } from '../errors/domain-error';
import { assertNodeMayAllocate, assertNodeMayHold, assertPodOnNode } from './node-restriction';

const worker1 = { node: 'worker-1' };
const request = { node: 'worker-1', owner: 'pod' as const, namespace: 'db', pod: 'pg-0' };

/** The code of what `check` throws, or null when it lets the request through. */
function refusal(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).code;
  }
}

describe('node restriction', () => {
  it("lets a node's credential allocate for a pod of its own node, and refuses another node or an external address", () => {
    expect(refusal(() => assertNodeMayAllocate(worker1, request))).toBeNull();
    expect(refusal(() => assertNodeMayAllocate(worker1, { ...request, node: 'worker-2' }))).toBe('NODE_FORBIDDEN');
    expect(refusal(() => assertNodeMayAllocate(worker1, { ...request, owner: 'external' }))).toBe('NODE_FORBIDDEN');
    // a credential bound to no node is not limited here
    expect(refusal(() => assertNodeMayAllocate(null, { ...request, node: 'worker-2', owner: 'external' }))).toBeNull();
  });

  it('refuses a pod the consumer knows on another node or on none, and checks nothing when it knows nothing of pods', () => {
    expect(refusal(() => assertPodOnNode(worker1, request, 'worker-1'))).toBeNull();
    expect(refusal(() => assertPodOnNode(worker1, request, 'worker-2'))).toBe('NODE_FORBIDDEN');
    expect(refusal(() => assertPodOnNode(worker1, request, null))).toBe('NODE_FORBIDDEN');
    expect(refusal(() => assertPodOnNode(worker1, request, undefined))).toBeNull();
    expect(refusal(() => assertPodOnNode(null, request, 'worker-2'))).toBeNull();
  });

  it("lets a node's credential act on its own pods' addresses only: not another node's, not an external one, even one recorded before owners", () => {
    const own = { node: 'worker-1', owner: 'pod' as const, podUid: 'u1' };
    expect(refusal(() => assertNodeMayHold(worker1, 'h', [own, own]))).toBeNull();
    expect(refusal(() => assertNodeMayHold(worker1, 'h', []))).toBeNull();
    expect(refusal(() => assertNodeMayHold(worker1, 'h', [own, { ...own, node: 'worker-2' }]))).toBe('NODE_FORBIDDEN');
    expect(refusal(() => assertNodeMayHold(worker1, 'h', [{ ...own, owner: 'external' }]))).toBe('NODE_FORBIDDEN');
    // recorded before owners were, without a podUid: external
    expect(refusal(() => assertNodeMayHold(worker1, 'h', [{ node: 'worker-1', podUid: null }]))).toBe('NODE_FORBIDDEN');
    expect(refusal(() => assertNodeMayHold(null, 'h', [{ node: 'worker-2', podUid: null }]))).toBeNull();
  });

  it('says which node the credential is of, what it tried, and who may', () => {
    expect(() => assertNodeMayAllocate(worker1, { ...request, node: 'worker-2' })).toThrow(
      'a credential of node "worker-1" may not allocate for node "worker-2": that needs the admin role',
    );
    expect(() => assertPodOnNode(worker1, request, 'worker-2')).toThrow(/may not allocate for pod db\/pg-0, which runs on node "worker-2"/);
    expect(() => assertNodeMayHold(worker1, 'h', [{ node: 'worker-2', owner: 'pod', podUid: 'u' }])).toThrow(
      /may not act on handle "h", held by node "worker-2"/,
    );
  });
});
