import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { appendToStreams } from '@ipledger/event-store';
import { projectEvents } from '@ipledger/projections';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const pod = (handle: string) => ({ handle, node: 'worker-1', namespace: 'audit', pod: `pod-${handle}` });

describe('audit over HTTP: address history, pools and allocations as they were', () => {
  let api: TestApi;
  let history: Array<{ type: string; recordedAt: string; version: number }>;
  beforeAll(async () => {
    api = await startTestApi('audit', { env: { IPAM_TOKENS: 'ops-token:admin:ops-team' } });
    const as = { authorization: 'Bearer ops-token' };
    await api
      .http()
      .post('/v1/pools')
      .set(as)
      .send({ name: 'rack-7', cidr: '10.4.0.0/28', labels: { zone: 'a' } })
      .expect(201);
    await api.http().post('/v1/allocations').set(as).send(pod('h1')).expect(201);
    await api
      .http()
      .patch('/v1/pools/rack-7')
      .set(as)
      .send({ labels: { zone: 'b' } })
      .expect(200);
    await api.http().delete('/v1/allocations/h1').set(as).expect(204);
    await api.http().post('/v1/allocations').set(as).send(pod('h2')).expect(201);
    await api.http().put('/v1/statefulsets/audit/web').set(as).send({ replicas: 2, pool: 'rack-7' }).expect(200);
    history = (await api.http().get('/v1/pools/rack-7/history').set(as)).body.items;
  });
  afterAll(() => api.close());

  const get = (path: string, query: Record<string, unknown> = {}) =>
    api.http().get(path).query(query).set({ authorization: 'Bearer ops-token' });

  it("lists a pool's own events oldest first, in pages", async () => {
    expect(history.map((e) => e.type)).toEqual(['PoolCreated', 'IpAllocated', 'PoolUpdated', 'IpReleased', 'IpAllocated', 'RangeReserved']);
    const first = await get('/v1/pools/rack-7/history', { limit: 4 });
    expect(first.body.items).toHaveLength(4);
    const second = await get('/v1/pools/rack-7/history', { limit: 4, continue: first.body.continue });
    expect(second.body.items.map((e: { version: number }) => e.version)).toEqual([5, 6]);
    expect(second.body.continue).toBeNull();
    expect((await get('/v1/pools/ghost/history')).status).toBe(404);
  });

  it('tells who held an address when, with the actor', async () => {
    const res = await get('/v1/ips/10.4.0.1/history');
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      expect.objectContaining({
        type: 'IpAllocated',
        handle: 'h1',
        pool: 'rack-7',
        node: 'worker-1',
        namespace: 'audit',
        pod: 'pod-h1',
        actor: 'ops-team',
      }),
      expect.objectContaining({ type: 'IpReleased', handle: 'h1', pod: 'pod-h1' }),
      expect.objectContaining({ type: 'IpAllocated', handle: 'h2', pod: 'pod-h2' }),
    ]);
    const ranged = await get('/v1/ips/10.4.0.3/history');
    expect(ranged.body.items).toEqual([
      expect.objectContaining({ type: 'RangeReserved', pool: 'rack-7', namespace: 'audit', statefulSet: 'web' }),
    ]);
    expect((await get('/v1/ips/10.4.0.9/history')).body.items).toEqual([]);
    const bad = await get('/v1/ips/010.4.0.1/history');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_IP');
  });

  it('rebuilds a pool as it was at an instant', async () => {
    const [created, firstAllocation, patched] = history;
    const before = await get('/v1/pools/rack-7', { at: firstAllocation.recordedAt });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ labels: { zone: 'a' }, allocated: '1', version: 2, createdAt: created.recordedAt });
    const after = await get('/v1/pools/rack-7', { at: patched.recordedAt });
    expect(after.body).toMatchObject({ labels: { zone: 'b' }, version: 3 });
    const now = await get('/v1/pools/rack-7', { at: new Date(Date.now() + 60_000).toISOString() });
    const live = await get('/v1/pools/rack-7');
    expect(now.body).toEqual(live.body);
    const earlier = await get('/v1/pools/rack-7', { at: '2000-01-01T00:00:00Z' });
    expect(earlier.status).toBe(404);
    expect((await get('/v1/pools/rack-7', { at: 'yesterday' })).status).toBe(400);
  });

  it('lists the allocations of a pool as they were at an instant', async () => {
    const [, firstAllocation] = history;
    const then = await get('/v1/allocations', { pool: 'rack-7', at: firstAllocation.recordedAt });
    expect(then.body.items.map((a: { handle: string; ip: string }) => [a.handle, a.ip])).toEqual([['h1', '10.4.0.1']]);
    const now = await get('/v1/allocations', { pool: 'rack-7', at: new Date(Date.now() + 60_000).toISOString() });
    expect(now.body.items).toEqual((await get('/v1/allocations', { pool: 'rack-7' })).body.items);
    expect((await get('/v1/allocations', { at: firstAllocation.recordedAt })).status).toBe(400);
  });

  it('reads a release recorded in schema version 1 (no holder) through the upcaster: the address is free again', async () => {
    const as = { authorization: 'Bearer ops-token' };
    await api.http().post('/v1/pools').set(as).send({ name: 'legacy', cidr: '10.5.0.0/29' }).expect(201);
    const held = await api
      .http()
      .post('/v1/allocations')
      .set(as)
      .send({ ...pod('old'), pools: ['legacy'] });
    const ip = held.body.items[0].ip;
    // what an older ipledger wrote: IpReleased v1, projected as it was then
    await appendToStreams(
      api.db.pool,
      [
        {
          streamId: 'pool-legacy',
          expectedVersion: 2,
          events: [{ type: 'IpReleased', schemaVersion: 1, data: { pool: 'legacy', ip, handle: 'old' } }],
        },
      ],
      { inTransaction: (client, events) => projectEvents(client, events) },
    );
    const next = await api
      .http()
      .post('/v1/allocations')
      .set(as)
      .send({ ...pod('new'), pools: ['legacy'] });
    expect(next.status).toBe(201);
    expect(next.body.items[0].ip).toBe(ip);
    const release = (await get(`/v1/ips/${ip}/history`)).body.items.find((i: { type: string }) => i.type === 'IpReleased');
    expect(release).toMatchObject({ handle: 'old', node: null, pod: null });
  });

  it('records the request id as correlation and causation id of the events it caused', async () => {
    await api
      .http()
      .patch('/v1/pools/legacy')
      .set({ authorization: 'Bearer ops-token', 'x-request-id': 'req-audit-1' })
      .send({ disabled: true })
      .expect(200);
    const last = (await get('/v1/pools/legacy/history')).body.items.at(-1);
    expect(last.metadata).toEqual({ actor: 'ops-team', source: 'rest', correlationId: 'req-audit-1', causationId: 'req-audit-1' });
  });

  it('rebuilds every read model from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
