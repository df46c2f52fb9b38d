import { decideAllocate } from '@ipledger/domain';
import { PreconditionFailedError } from '@ipledger/event-store';
import type { UnreadStart } from '@ipledger/projections';
import { PoolGroupCommit } from '../src/infrastructure/pool-group-commit';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const ips = (res: { body: { items: Array<{ ip: string }> } }) => res.body.items.map((a) => a.ip);

/**
 * An allocation from one named pool whose state is cached is decided without its start read
 * (round-trips.int.spec.ts): the append's precondition stands for that read. What the read would
 * have found must still win: the address a handle holds in another pool, the ordinal address a
 * StatefulSet reserved for the pod.
 */
describe('allocations decided without their start read', () => {
  let api: TestApi;
  const body = (handle: string, pool: string, pod = handle) => ({
    handle,
    node: 'n',
    namespace: 'ns',
    pod,
    pools: [pool],
    families: [pool.endsWith('6') ? 6 : 4],
  });
  beforeAll(async () => {
    api = await startTestApi('unread_allocation');
    await api.http().post('/v1/pools').send({ name: 'a4', cidr: '10.41.0.0/24' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'b4', cidr: '10.42.0.0/24' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'a6', cidr: 'fd00:41::/120' }).expect(201);
    // every pool's state cached, as the hot path meets it
    for (const pool of ['a4', 'b4', 'a6'])
      await api
        .http()
        .post('/v1/allocations')
        .send(body(`warm-${pool}`, pool))
        .expect(201);
  });
  afterAll(() => api.close());

  it.each([
    ['of the same family', 'a4', 'b4'],
    // the allocations key (handle, family) does not catch this one: only the precondition does
    ['of the other family', 'a6', 'b4'],
  ])('answers a handle with what it holds in another pool %s, appending nothing', async (_, held, asked) => {
    const handle = `moved-${held}`;
    const first = await api.http().post('/v1/allocations').send(body(handle, held)).expect(201);
    const events = await api.eventCount();
    const again = await api.http().post('/v1/allocations').send(body(handle, asked)).expect(200);
    expect(ips(again)).toEqual(ips(first));
    expect(again.body.items[0].pool).toBe(held);
    expect(await api.eventCount()).toBe(events);
  });

  it("gives a reserved StatefulSet's pod its ordinal address, not the next free one", async () => {
    const reserved = await api.http().put('/v1/statefulsets/ns/db').send({ replicas: 3, pool: 'b4' }).expect(200);
    const start = (reserved.body.range as { start: string }).start.split('.').map(Number);
    const ordinal1 = [...start.slice(0, 3), start[3] + 1].join('.');
    const pod = await api
      .http()
      .post('/v1/allocations')
      .send(body('h-db-1', 'b4', 'db-1'))
      .expect(201);
    expect(pod.body.items[0]).toMatchObject({ ip: ordinal1, statefulSet: { namespace: 'ns', name: 'db', ordinal: 1 } });
  });

  const allocate = (handle: string, unread?: UnreadStart) =>
    api.app.get(PoolGroupCommit).run('b4', {
      metadata: { actor: 'test', source: 'rest', correlationId: handle },
      ...(unread ? { unread } : {}),
      decide: (state) => {
        const decided = decideAllocate(state, { handle, node: 'n', namespace: 'ns', pod: handle, podUid: null });
        return { events: [decided.claim, decided.event].flatMap((e) => (e === null ? [] : [e])), answer: () => decided.ip };
      },
    });
  const unread = (handle: string, statefulSet: string | null = null, reservationVersion: number | null = null): UnreadStart => ({
    handle,
    namespace: 'ns',
    statefulSet,
    reservationVersion,
  });

  it('appends a decision on a cached reservation only at the version it was cached at', async () => {
    await api.http().put('/v1/statefulsets/ns/web').send({ replicas: 2, pool: 'b4' }).expect(200);
    const { rows } = await api.db.pool.query<{ version: number }>(
      `SELECT version FROM statefulsets WHERE namespace = 'ns' AND name = 'web'`,
    );
    const version = Number(rows[0].version);
    // another replica's reconciliation since (a stale cache), or a decision that assumed no reservation
    await expect(allocate('web-stale', unread('web-stale', 'web', version - 1))).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(allocate('web-none', unread('web-none', 'web', null))).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(allocate('web-current', unread('web-current', 'web', version))).resolves.toBeDefined();
    // a StatefulSet without a reservation is decided assuming none
    await expect(allocate('solo-0', unread('solo-0', 'solo', null))).resolves.toBeDefined();
  });

  it('fails only the requests whose precondition failed: the rest of their batch is appended at once', async () => {
    await api.http().post('/v1/allocations').send(body('holds-a4', 'a4')).expect(201);
    // pushed in one turn of the event loop: one batch, one append
    const [moved, bystander] = await Promise.allSettled([allocate('holds-a4', unread('holds-a4')), allocate('bystander')]);
    expect(moved).toMatchObject({ status: 'rejected', reason: expect.any(PreconditionFailedError) });
    expect(bystander).toMatchObject({ status: 'fulfilled' });
    const held = await api.http().get('/v1/allocations/bystander').expect(200);
    expect(held.body.items[0].pool).toBe('b4');
  });
});
