import { CommandBus } from '@nestjs/cqrs';
import { AllocateIpCommand, type CommandMetadata } from '@ipledger/domain';
import { OwnTransaction } from '../src/infrastructure/unit-of-work';
import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** Claims: addresses that outlive a pod (API.md "Claims"), over HTTP on the real database. */
describe('claims: addresses that outlive a pod', () => {
  let api: TestApi;
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const post = (body: Record<string, unknown>, token = 'alloc') => api.http().post('/v1/allocations').set(as(token)).send(body);
  const release = (handle: string, token = 'alloc') =>
    api
      .http()
      .delete(`/v1/allocations/${encodeURIComponent(handle)}`)
      .set(as(token));
  const claim = (name: string) =>
    api
      .http()
      .get(`/v1/claims/${encodeURIComponent(name)}`)
      .set(as('root'));
  /** a virt-launcher pod's ADD for the claim */
  const launcher = (handle: string, name: string, node = 'worker-1', extra: Record<string, unknown> = {}) => ({
    handle,
    node,
    namespace: 'vms',
    pod: `virt-launcher-${handle}`,
    claim: name,
    pools: ['p'],
    ...extra,
  });
  const metadata: CommandMetadata = { actor: 'test', source: 'rest', correlationId: 'claims-test' };
  const ips = (res: { body: { items: Array<{ ip: string }> } }) => res.body.items.map((a) => a.ip);

  beforeAll(async () => {
    api = await startTestApi('claims', {
      env: { IPAM_TOKENS: 'root:admin:ops,alloc:allocator:cni,w1:allocator:cni-w1::worker-1,reader:reader:ui' },
    });
    await api.http().post('/v1/pools').set(as('root')).send({ name: 'p', cidr: '10.80.0.0/24' }).expect(201);
  });
  afterAll(() => api.close());

  it('gives a claim new addresses with its first reference (201), the same ones to a second (200), and refuses a third (409)', async () => {
    const first = await post(launcher('src', 'vm-a')).expect(201);
    expect(first.body.items).toEqual([expect.objectContaining({ handle: 'src', claim: 'vm-a', pool: 'p', owner: 'external' })]);
    const second = await post(launcher('dst', 'vm-a', 'worker-2')).expect(200);
    expect(ips(second)).toEqual(ips(first));
    // answered as the target's own: its node and pod, not the holding's (the first reference's)
    expect(second.body.items[0]).toMatchObject({ handle: 'dst', claim: 'vm-a', node: 'worker-2', pod: 'virt-launcher-dst' });
    // a retried ADD of a reference is answered the same, and appends nothing
    const events = await api.eventCount();
    expect(ips(await post(launcher('src', 'vm-a')).expect(200))).toEqual(ips(first));
    expect(await api.eventCount()).toBe(events);
    const third = await post(launcher('third', 'vm-a')).expect(409);
    expect(third.body).toMatchObject({ statusCode: 409, error: 'Conflict', code: 'CLAIM_REFERENCES_FULL' });
    expect(await api.eventCount()).toBe(events);
    expect((await api.http().get('/v1/allocations/third').set(as('root'))).status).toBe(404);

    const got = (await claim('vm-a').expect(200)).body;
    expect(got).toEqual({
      name: 'vm-a',
      cluster: 'default',
      network: null,
      persistent: false,
      items: [expect.objectContaining({ handle: '@vm-a', ip: ips(first)[0] })],
      references: [
        { cluster: 'default', handle: 'src', node: 'worker-1', namespace: 'vms', pod: 'virt-launcher-src', since: expect.any(String) },
        { cluster: 'default', handle: 'dst', node: 'worker-2', namespace: 'vms', pod: 'virt-launcher-dst', since: expect.any(String) },
      ],
      createdAt: expect.any(String),
    });
    const byReference = await api.http().get('/v1/allocations/dst').set(as('reader')).expect(200);
    expect(byReference.body.items).toEqual([
      expect.objectContaining({ handle: 'dst', claim: 'vm-a', ip: ips(first)[0], node: 'worker-2', pod: 'virt-launcher-dst' }),
    ]);
  });

  it('releases per reference: the source DEL leaves the target holding; the last reference of a transient claim frees the address', async () => {
    const [ip] = (await claim('vm-a').expect(200)).body.items.map((a: { ip: string }) => a.ip);
    await release('src').expect(204);
    const after = (await claim('vm-a').expect(200)).body;
    expect(after.references.map((r: { handle: string }) => r.handle)).toEqual(['dst']);
    expect(after.items.map((a: { ip: string }) => a.ip)).toEqual([ip]);
    // a released reference's DEL again changes nothing
    const events = await api.eventCount();
    await release('src').expect(204);
    expect(await api.eventCount()).toBe(events);
    // with the source gone, a new target may join
    expect(ips(await post(launcher('dst2', 'vm-a')).expect(200))).toEqual([ip]);
    await release('dst').expect(204);
    await release('dst2').expect(204);
    expect((await claim('vm-a').expect(404)).body.code).toBe('CLAIM_NOT_FOUND');
    expect((await api.http().get(`/v1/allocations?pool=p`).set(as('root'))).body.items.map((a: { ip: string }) => a.ip)).not.toContain(ip);
  });

  it('keeps a persistent claim’s address without references until the claim is deleted', async () => {
    const put = await api.http().put('/v1/claims/vm-p').set(as('root')).send({ network: 'k8s-pod-network' }).expect(200);
    expect(put.body).toMatchObject({ name: 'vm-p', persistent: true, network: 'k8s-pod-network', items: [], references: [] });
    const first = await post(launcher('p1', 'vm-p', 'worker-1', { network: 'k8s-pod-network' })).expect(201);
    await release('p1').expect(204);
    const kept = (await claim('vm-p').expect(200)).body;
    expect(kept).toMatchObject({ persistent: true, references: [] });
    expect(kept.items.map((a: { ip: string }) => a.ip)).toEqual(ips(first));
    // the restarted VM's new pod gets it back
    expect(ips(await post(launcher('p2', 'vm-p', 'worker-2', { network: 'k8s-pod-network' })).expect(200))).toEqual(ips(first));
    // a claim is of one network
    expect((await post(launcher('p3', 'vm-p', 'worker-2', { network: 'other' })).expect(400)).body.code).toBe('INVALID_ARGUMENT');
    // PUT again is idempotent; claims are the admin's to make and delete
    expect((await api.http().put('/v1/claims/vm-p').set(as('root')).send({}).expect(200)).body.items).toHaveLength(1);
    await api.http().put('/v1/claims/vm-x').set(as('alloc')).send({}).expect(403);
    await api.http().delete('/v1/claims/vm-p').set(as('alloc')).expect(403);
    await api.http().delete('/v1/claims/vm-p').set(as('root')).expect(204);
    expect((await claim('vm-p').expect(404)).body.code).toBe('CLAIM_NOT_FOUND');
    expect((await api.http().get('/v1/allocations/p2').set(as('root'))).status).toBe(404);
    expect((await api.http().delete('/v1/claims/vm-p').set(as('root')).expect(404)).body.code).toBe('CLAIM_NOT_FOUND');
  });

  it('takes names with `/` (written %2F in a path) and refuses other characters and a handle shaped as a claim’s', async () => {
    const name = 'ipamclaim:default:vms/db-1.eth0';
    await api
      .http()
      .put(`/v1/claims/${encodeURIComponent(name)}`)
      .set(as('root'))
      .send({})
      .expect(200);
    expect((await claim(name).expect(200)).body.name).toBe(name);
    expect(ips(await post(launcher('slash', name)).expect(201))).toHaveLength(1);
    const listed = await api.http().get('/v1/claims?limit=1').set(as('reader')).expect(200);
    expect(listed.body.items.map((c: { name: string }) => c.name)).toEqual([name]);
    expect(listed.body.continue).toBeNull();
    const events = await api.eventCount();
    for (const bad of ['a b', 'a@b', 'x'.repeat(254)])
      expect(
        (
          await api
            .http()
            .put(`/v1/claims/${encodeURIComponent(bad)}`)
            .set(as('root'))
            .send({})
        ).status,
      ).toBe(400);
    expect((await post(launcher('bad', 'a@b')).expect(400)).body.code).toBe('INVALID_NAME');
    expect((await post({ handle: '@x', node: 'worker-1', namespace: 'vms', pod: 'v' }).expect(400)).body.code).toBe('INVALID_ARGUMENT');
    expect((await release(`@${name}`).expect(400)).body.code).toBe('INVALID_ARGUMENT');
    expect(await api.eventCount()).toBe(events);
    await api
      .http()
      .delete(`/v1/claims/${encodeURIComponent(name)}`)
      .set(as('root'))
      .expect(204);
  });

  it('gives `ip` with a claim that address, or 409 IP_IN_USE when another claim or handle holds it', async () => {
    await post({ handle: 'plain', node: 'worker-1', namespace: 'vms', pod: 'plain', ip: '10.80.0.50', pools: ['p'] }).expect(201);
    expect((await post(launcher('i1', 'vm-i', 'worker-1', { ip: '10.80.0.50' })).expect(409)).body.code).toBe('IP_IN_USE');
    expect(ips(await post(launcher('i1', 'vm-i', 'worker-1', { ip: '10.80.0.51' })).expect(201))).toEqual(['10.80.0.51']);
    expect((await post(launcher('j1', 'vm-j', 'worker-1', { ip: '10.80.0.51' })).expect(409)).body.code).toBe('IP_IN_USE');
    // a claim holding an address is not given another
    expect((await post(launcher('i2', 'vm-i', 'worker-1', { ip: '10.80.0.52' })).expect(409)).body.code).toBe('IP_IN_USE');
    // the claim's own address, asked for by a second reference, is its
    expect(ips(await post(launcher('i2', 'vm-i', 'worker-1', { ip: '10.80.0.51' })).expect(200))).toEqual(['10.80.0.51']);
  });

  it('lets a node’s credential take and drop only its own node’s references', async () => {
    await post(launcher('n1', 'vm-n', 'worker-1'), 'w1').expect(201);
    await post(launcher('n2', 'vm-n', 'worker-2'), 'w1').expect(403);
    await post(launcher('n2', 'vm-n', 'worker-2')).expect(200);
    expect((await release('n2', 'w1').expect(403)).body.code).toBe('NODE_FORBIDDEN');
    expect((await claim('vm-n').expect(200)).body.references).toHaveLength(2);
    await release('n1', 'w1').expect(204);
    expect((await claim('vm-n').expect(200)).body.references.map((r: { handle: string }) => r.handle)).toEqual(['n2']);
  });

  it('shows each reference taken and dropped, with its cluster and pod, in the address’s history', async () => {
    const [ip] = ips(await post(launcher('h1', 'vm-h')).expect(201));
    await post(launcher('h2', 'vm-h', 'worker-2')).expect(200);
    await release('h1').expect(204);
    await release('h2').expect(204);
    const history = (await api.http().get(`/v1/ips/${ip}/history`).set(as('reader')).expect(200)).body.items;
    const lines = history.map((i: Record<string, unknown>) => [i.type, i.handle, i.claim ?? null, i.cluster ?? null, i.pod, i.node]);
    expect(lines).toEqual([
      ['IpAllocated', '@vm-h', null, 'default', 'virt-launcher-h1', 'worker-1'],
      ['ClaimReferenceAdded', 'h1', 'vm-h', 'default', 'virt-launcher-h1', 'worker-1'],
      ['ClaimReferenceAdded', 'h2', 'vm-h', 'default', 'virt-launcher-h2', 'worker-2'],
      ['ClaimReferenceDropped', 'h1', 'vm-h', 'default', 'virt-launcher-h1', 'worker-1'],
      // the last reference and the address go in one transaction (a multi-stream append is
      // positioned in stream-id order: the claim's stream before the pool's)
      ['ClaimReferenceDropped', 'h2', 'vm-h', 'default', 'virt-launcher-h2', 'worker-2'],
      ['IpReleased', '@vm-h', null, 'default', 'virt-launcher-h1', 'worker-1'],
    ]);
  });

  it('repairs a first allocation whose claim append was lost: the retry finds the holding’s address and records the reference', async () => {
    // the pool append of a claim's first allocation, as if the server stopped before the claim's append
    const lost = await api.app
      .get(CommandBus)
      .execute(
        new AllocateIpCommand(
          { handle: '@vm-c', node: 'worker-1', namespace: 'vms', pod: 'virt-launcher-c1', owner: 'external', pools: ['p'] },
          metadata,
          new OwnTransaction({ retries: true }),
        ),
      );
    expect((await claim('vm-c')).status).toBe(404);
    const retried = await post(launcher('c1', 'vm-c')).expect(201);
    expect(ips(retried)).toEqual(lost.items.map((a: { ip: string }) => a.ip));
    expect((await claim('vm-c').expect(200)).body.references.map((r: { handle: string }) => r.handle)).toEqual(['c1']);
  });

  it('decides concurrent first allocations of one claim as one: one address, two references, the rest refused', async () => {
    const answers = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((handle) => post(launcher(handle, 'vm-r'))));
    expect(answers.map((res) => res.status).sort()).toEqual([200, 201, 409, 409, 409]);
    const held = answers.filter((res) => res.status < 300).map(ips);
    expect(held[0]).toEqual(held[1]);
    const got = (await claim('vm-r').expect(200)).body;
    expect(got.items.map((a: { ip: string }) => a.ip)).toEqual(held[0]);
    expect(got.references).toHaveLength(2);
  });

  it('rebuilds the claims read model from the log as it is live', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
