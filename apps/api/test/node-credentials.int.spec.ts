import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@ipledger/messaging';
import { eventually } from '../../../test/support/eventually';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * API.md "Access", Node credentials: an allocator bound to a node (a static IPAM_TOKENS entry naming
 * it, or the CNI DaemonSet's ServiceAccount token reviewed by the cluster's API server, here the
 * fake one) allocates and releases for its own node's pods only. The API consumes Kubernetes
 * objects (this suite's stream), so it knows on which node each pod runs.
 */
describe('node credentials', () => {
  const TTL_MS = 1000;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let api: TestApi;
  const dir = mkdtempSync(join(tmpdir(), 'ipledger-node-credentials-'));
  let rv = 1000;
  const uids = new Map<string, string>();

  const pod = (namespace: string, name: string, node: string): KubeObject => {
    const uid = randomUUID();
    uids.set(`${namespace}/${name}`, uid);
    return { metadata: { name, namespace, uid, resourceVersion: String(++rv) }, spec: { nodeName: node } };
  };
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const allocate = (token: string, body: Record<string, unknown>) => api.http().post('/v1/allocations').set(as(token)).send(body);
  const release = (token: string, handle: string) => api.http().delete(`/v1/allocations/${handle}`).set(as(token));
  /** a CNI ADD's body for the pod: its uid, owner pod, pool p */
  const add = (handle: string, node: string, namespace: string, name: string) => ({
    handle,
    node,
    namespace,
    pod: name,
    podUid: uids.get(`${namespace}/${name}`),
    owner: 'pod',
    pools: ['p'],
  });
  const held = async (handle: string) => (await api.http().get(`/v1/allocations/${handle}`).set(as('root'))).body.items ?? [];

  beforeAll(async () => {
    kube = await startFakeKubeApi({ token: 'kube-admin-token' });
    bus = await createTestBus('node_credentials');
    api = await startTestApi('node_credentials', {
      env: {
        ...bus.env,
        IPAM_TOKENS: 'root:admin:ops,alloc:allocator:cni,w1tok:allocator:cni-w1::worker-1,w2tok:allocator:cni-w2:default:worker-2',
        IPAM_TOKEN_REVIEW: 'on',
        KUBECONFIG: kube.writeKubeconfig(dir),
        IPAM_TOKEN_REVIEW_CACHE_MS: String(TTL_MS),
        IPAM_POD_WAIT_MS: '300',
      },
    });
    await api.http().post('/v1/pools').set(as('root')).send({ name: 'p', cidr: '10.70.0.0/24' }).expect(201);
    // a StatefulSet's continuous range: pod db/pg-<n> is always given start + n
    await api.http().put('/v1/statefulsets/db/pg').set(as('root')).send({ replicas: 3, pool: 'p' }).expect(200);
    for (const [namespace, name, node] of [
      ['web', 'a-1', 'worker-1'],
      ['web', 'b-1', 'worker-1'],
      ['web', 'a-2', 'worker-2'],
      ['db', 'pg-0', 'worker-2'],
      ['db', 'pg-1', 'worker-2'],
    ])
      await bus.publisher.change({ kind: 'pod', type: 'ADDED', object: pod(namespace, name, node) });
    await bus.publisher.flush();
    await bus.idle();
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * The refusals and the successes of one credential of worker-1 (`own`) beside one of worker-2
   * (`other`); `tag` keeps each run's handles apart.
   */
  async function actsForItsNodeOnly(own: string, other: string, tag: string): Promise<void> {
    // what another node and the operator hold: worker-2's pod, an external address made by the admin on worker-1
    await allocate(other, add(`${tag}-w2`, 'worker-2', 'web', 'a-2')).expect(201);
    await allocate('root', { handle: `${tag}-ext`, node: 'worker-1', namespace: 'web', pod: 'vip', pools: ['p'] }).expect(201);
    const before = await api.eventCount();
    const refusals = [
      ['release another node’s handle', await release(own, `${tag}-w2`)],
      ['release an external address', await release(own, `${tag}-ext`)],
      // its own node's pod, named on another node (or one that does not exist): the body's node is not taken on trust
      ['allocate for another node', await allocate(own, add(`${tag}-x1`, 'worker-2', 'web', 'a-1'))],
      ['allocate for a node that does not exist', await allocate(own, add(`${tag}-x6`, 'ghost-7', 'web', 'a-1'))],
      // the StatefulSet ordinal's address, before the real pod on worker-2 asks: with its uid, or by its name alone
      ['allocate for a pod on another node', await allocate(own, add(`${tag}-x2`, 'worker-1', 'db', 'pg-0'))],
      [
        'allocate for a pod on another node, by name',
        await allocate(own, { ...add(`${tag}-x3`, 'worker-1', 'db', 'pg-1'), podUid: undefined }),
      ],
      ['allocate an external address', await allocate(own, { ...add(`${tag}-x4`, 'worker-1', 'web', 'a-1'), owner: 'external' })],
      [
        'allocate with no podUid nor owner (external)',
        await allocate(own, { handle: `${tag}-x5`, node: 'worker-1', namespace: 'web', pod: 'a-1', pools: ['p'] }),
      ],
      ['answer a retry with another node’s handle', await allocate(own, add(`${tag}-w2`, 'worker-1', 'web', 'a-1'))],
    ] as const;
    expect(refusals.map(([what, res]) => ({ what, status: res.status, code: res.body.code }))).toEqual(
      refusals.map(([what]) => ({ what, status: 403, code: 'NODE_FORBIDDEN' })),
    );
    expect(refusals[0][1].body.message).toMatch(/held by node "worker-2".*admin/);
    // refused: nothing appended, nothing released
    expect(await api.eventCount()).toBe(before);
    expect(await held(`${tag}-w2`)).toHaveLength(1);
    expect(await held(`${tag}-ext`)).toHaveLength(1);

    // its own node's pods: allocate (a retry answers the same), release; a handle holding nothing: 204
    const mine = await allocate(own, add(`${tag}-own`, 'worker-1', 'web', 'a-1')).expect(201);
    expect((await allocate(own, add(`${tag}-own`, 'worker-1', 'web', 'a-1')).expect(200)).body.items).toEqual(mine.body.items);
    await release(own, `${tag}-own`).expect(204);
    expect(await held(`${tag}-own`)).toEqual([]);
    await release(own, `${tag}-nothing`).expect(204);
    // and the reader's rights
    expect((await api.http().get('/v1/allocations').query({ node: 'worker-2' }).set(as(own))).status).toBe(200);

    // the admin releases what the node may not
    await release('root', `${tag}-w2`).expect(204);
    await release('root', `${tag}-ext`).expect(204);
  }

  /** The real pod gets its ordinal's address: nobody took it before. */
  async function ordinalAddressKept(token: string, tag: string): Promise<void> {
    const reservation = (await api.http().get('/v1/statefulsets/db/pg').set(as('root')).expect(200)).body;
    const [first] = (await allocate(token, add(`${tag}-pg0`, 'worker-2', 'db', 'pg-0')).expect(201)).body.items;
    expect(first.ip).toBe(reservation.range.start);
    await release(token, `${tag}-pg0`).expect(204);
  }

  describe('a static IPAM_TOKENS entry naming the node', () => {
    it('allocates and releases for its own node only; another node, an external address, another node’s pod: 403', async () => {
      await actsForItsNodeOnly('w1tok', 'w2tok', 'static');
    });

    it('leaves a StatefulSet ordinal’s address to the real pod', async () => {
      await ordinalAddressKept('w2tok', 'static');
    });

    it('waits for a known pod to be bound to a node before acting for it (503 POD_NOT_SEEN until then)', async () => {
      const pending = pod('web', 'pending-1', 'worker-1');
      const unbound = { ...pending, spec: {} };
      await bus.publisher.change({ kind: 'pod', type: 'ADDED', object: unbound });
      await bus.publisher.flush();
      await bus.idle();
      const early = await allocate('w1tok', add('pending-a', 'worker-1', 'web', 'pending-1'));
      expect({ status: early.status, code: early.body.code }).toEqual({ status: 503, code: 'POD_NOT_SEEN' });
      expect(early.body.message).toMatch(/bound to a node/);
      const bound = { ...pending, metadata: { ...pending.metadata, resourceVersion: String(++rv) } };
      await bus.publisher.change({ kind: 'pod', type: 'MODIFIED', object: bound });
      await bus.publisher.flush();
      await bus.idle();
      await allocate('w1tok', add('pending-a', 'worker-1', 'web', 'pending-1')).expect(201);
      await release('w1tok', 'pending-a').expect(204);
    });

    it('limits nothing of an allocator bound to no node', async () => {
      await allocate('alloc', add('unbound-1', 'worker-2', 'web', 'a-2')).expect(201);
      await allocate('alloc', { handle: 'unbound-ext', node: 'nowhere', namespace: 'web', pod: 'vip', pools: ['p'] }).expect(201);
      await release('alloc', 'unbound-1').expect(204);
      await release('alloc', 'unbound-ext').expect(204);
    });
  });

  describe('the CNI DaemonSet’s ServiceAccount token, through a TokenReview', () => {
    it('allocates and releases for the node of the token’s pod only', async () => {
      await actsForItsNodeOnly(kube.issueToken({ node: 'worker-1' }), kube.issueToken({ node: 'worker-2' }), 'review');
    });

    it('leaves a StatefulSet ordinal’s address to the real pod', async () => {
      await ordinalAddressKept(kube.issueToken({ node: 'worker-2' }), 'review');
    });

    it('refuses (401) a token of another ServiceAccount, of another audience, bound to no node, or that the server does not know', async () => {
      const reviews = kube.tokenReviews.length;
      const tokens = {
        'another ServiceAccount': kube.issueToken({ node: 'worker-1', serviceAccount: 'default:default' }),
        'bound to no node': kube.issueToken({ node: null }),
        'another audience': kube.issueToken({ node: 'worker-1', audiences: ['https://kubernetes.default.svc'] }),
        'unknown to the server': kube.issueToken({ node: 'worker-1' }).replace(/\.[^.]+$/, '.forged'),
      };
      for (const [what, token] of Object.entries(tokens))
        expect({ what, status: (await allocate(token, add(`r-${what}`, 'worker-1', 'web', 'a-1'))).status }).toEqual({ what, status: 401 });
      // the other audience's token never reached the server
      expect(kube.tokenReviews.length - reviews).toBe(3);
    });

    it('sends no TokenReview for a bearer string that is not a JWT, and one for many requests with one token', async () => {
      const reviews = kube.tokenReviews.length;
      expect((await api.http().get('/v1/pools').set(as('not-a-jwt'))).status).toBe(401);
      expect((await api.http().get('/v1/pools').set(as('a.b.c'))).status).toBe(401);
      expect(kube.tokenReviews.length).toBe(reviews);
      const token = kube.issueToken({ node: 'worker-1' });
      const answers = await Promise.all(Array.from({ length: 5 }, () => api.http().get('/v1/pools').set(as(token))));
      expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
      expect(kube.tokenReviews.length - reviews).toBe(1);
      // one after another: the verdict is kept for IPAM_TOKEN_REVIEW_CACHE_MS, so one review a TTL at most, however slow the machine
      const started = Date.now();
      for (let i = 0; i < 10; i++) await api.http().get('/v1/pools').set(as(token)).expect(200);
      expect(kube.tokenReviews.length - reviews).toBeLessThanOrEqual(2 + Math.floor((Date.now() - started) / TTL_MS));
    });

    it('stops taking a revoked token once its verdict has expired', async () => {
      const token = kube.issueToken({ node: 'worker-1' });
      await allocate(token, add('revoked-1', 'worker-1', 'web', 'b-1')).expect(201);
      kube.revokeToken(token);
      const revokedAt = Date.now();
      // polled: the kept verdict may let it in until IPAM_TOKEN_REVIEW_CACHE_MS has passed, never longer
      const status = await eventually(
        async () => (await api.http().get('/v1/allocations/revoked-1').set(as(token))).status,
        (s) => s === 401,
        TTL_MS + 5000,
        'the revoked token to be refused',
      );
      expect(status).toBe(401);
      expect(Date.now() - revokedAt).toBeLessThan(TTL_MS + 5000);
      expect((await release(token, 'revoked-1')).status).toBe(401);
      expect(await held('revoked-1')).toHaveLength(1);
      await release('root', 'revoked-1').expect(204);
    });

    it('answers 503 UNAVAILABLE, letting nobody in, while the API server cannot review, and takes the token once it can', async () => {
      const token = kube.issueToken({ node: 'worker-1' });
      kube.failTokenReviews(500, 1);
      const down = await api.http().get('/v1/pools').set(as(token));
      expect({ status: down.status, code: down.body.code, retryAfter: down.header['retry-after'] }).toEqual({
        status: 503,
        code: 'UNAVAILABLE',
        retryAfter: '1',
      });
      expect(down.body.message).not.toContain(token);
      expect((await api.http().get('/v1/pools').set(as(token))).status).toBe(200);
    });
  });
});
