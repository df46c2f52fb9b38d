import { decideAllocate, PoolAggregate, poolCounts, type IpAllocated, type IpReleased, type PoolView } from '@ipledger/domain';
import { parseIp } from '@ipledger/ip';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

type Sent =
  | { kind: 'allocate'; handle: string; ip?: string; status: number; body: { items?: Array<{ ip: string }>; code?: string } }
  | { kind: 'release'; handle: string; status: number };

const body = (handle: string) => ({ handle, node: 'worker-1', namespace: 'default', pod: handle });
const holder = (handle: string) => ({ ...body(handle), podUid: null });

/**
 * Group commit under load: 200 requests at once into one pool, of every kind (fresh handles, a
 * handle sent twice at once, retries of held handles, `ip` requests for taken and free addresses,
 * releases). The pool's stream is the order the batches committed in; every answer must be the one
 * that order gives (answers that appended nothing must hold in some state along it), and the
 * allocations read model must hold each address once and agree with the stream.
 */
describe('group commit: 200 concurrent requests into one pool', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('group_commit');
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'hot', cidr: '10.9.0.0/24', reserved: ['10.9.0.1'] })
      .expect(201);
  });
  afterAll(() => api.close());

  it('answers every request as some one-at-a-time order would, and holds no address twice', async () => {
    for (let i = 0; i < 30; i++) {
      await api
        .http()
        .post('/v1/allocations')
        .send({ ...body(`pre-${i}`), pools: ['hot'] })
        .expect(201);
    }
    const start = await streamVersion();
    // pre-i holds 10.9.0.(i+2)
    const plan: Array<{ kind: 'allocate'; handle: string; ip?: string } | { kind: 'release'; handle: string }> = [];
    for (let i = 0; i < 80; i++) plan.push({ kind: 'allocate', handle: `fresh-${i}` });
    for (let i = 0; i < 15; i++) plan.push({ kind: 'allocate', handle: `twice-${i}` }, { kind: 'allocate', handle: `twice-${i}` });
    for (let i = 0; i < 15; i++) plan.push({ kind: 'allocate', handle: `pre-${i}` });
    for (let i = 0; i < 20; i++) plan.push({ kind: 'allocate', handle: `wants-${i}`, ip: `10.9.0.${i + 10}` });
    for (let i = 0; i < 10; i++) plan.push({ kind: 'allocate', handle: `high-${i}`, ip: `10.9.0.${240 + i}` });
    for (let i = 0; i < 20; i++) plan.push({ kind: 'release', handle: `pre-${i + 5}` });
    for (let i = 0; i < 25; i++) plan.push({ kind: 'release', handle: `fresh-${i * 3}` });
    expect(plan).toHaveLength(200);

    const sent: Sent[] = await Promise.all(
      plan.map(async (p) => {
        if (p.kind === 'release') {
          const res = await api.http().delete(`/v1/allocations/${p.handle}`);
          return { ...p, status: res.status };
        }
        const res = await api
          .http()
          .post('/v1/allocations')
          .send({ ...body(p.handle), pools: ['hot'], ...(p.ip ? { ip: p.ip } : {}) });
        return { ...p, status: res.status, body: res.body as { items?: Array<{ ip: string }>; code?: string } };
      }),
    );

    // the states the pool went through, from before the burst to after it
    const { rows } = await api.db.pool.query<{ version: number; type: string; data: Record<string, unknown> }>(
      "SELECT version, type, data FROM events WHERE stream_id = 'pool-hot' ORDER BY version",
    );
    let state = PoolAggregate.initialState();
    const states: PoolView[] = [];
    const burst: Array<{ before: PoolView; event: IpAllocated | IpReleased }> = [];
    for (const row of rows) {
      // each state along the way: evolve returns a new one and leaves the one before as it was
      const before = row.version > start ? state : null;
      state = PoolAggregate.evolve(state, row);
      if (before) {
        burst.push({ before, event: { type: row.type, data: row.data } as IpAllocated | IpReleased });
        states.push(state);
      }
      if (row.version === start) states.push(state);
    }
    const someState = (holds: (s: PoolView) => boolean) => states.some(holds);
    const ipOf = (text: string) => parseIp(text).value;

    let allocatedEvents = burst.filter((b) => b.event.type === 'IpAllocated').length;
    let releasedEvents = burst.filter((b) => b.event.type === 'IpReleased').length;
    for (const s of sent) {
      const events = burst.filter((b) => b.event.data.handle === s.handle);
      if (s.kind === 'release') {
        expect(s.status).toBe(204);
        const released = events.filter((b) => b.event.type === 'IpReleased');
        if (released.length > 0) releasedEvents -= 1;
        // a release that appended nothing found nothing held, at some point of the order
        else expect(someState((st) => !st.byHandle.has(s.handle))).toBe(true);
        continue;
      }
      const allocated = events.filter((b) => b.event.type === 'IpAllocated') as Array<{ before: PoolView; event: IpAllocated }>;
      if (s.status === 201) {
        const ip = s.body.items![0].ip;
        const mine = allocated.find((b) => b.event.data.ip === ip);
        expect(mine).toBeDefined();
        allocatedEvents -= 1;
        // the address is the one the pool would have given at that point, one request at a time
        const alone = decideAllocate(mine!.before, { ...holder(s.handle), ...(s.ip ? { ip: ipOf(s.ip) } : {}) });
        expect(alone.event?.data.ip).toBe(ip);
      } else if (s.status === 200) {
        const ip = ipOf(s.body.items![0].ip);
        expect(someState((st) => st.byHandle.get(s.handle) === ip)).toBe(true);
      } else {
        expect(s.status).toBe(409);
        expect(s.body.code).toBe('IP_IN_USE');
        const wanted = ipOf(s.ip!);
        expect(someState((st) => !st.byHandle.has(s.handle) && st.holders.get(wanted)?.handle !== undefined)).toBe(true);
      }
    }
    // every event of the burst answered exactly one request
    expect(allocatedEvents).toBe(0);
    expect(releasedEvents).toBe(0);
    // the duplicates: one of each pair created, the other got the same address back
    for (let i = 0; i < 15; i++) {
      const pair = sent.filter((s) => s.handle === `twice-${i}`) as Array<Extract<Sent, { kind: 'allocate' }>>;
      expect(pair.map((s) => s.status).sort()).toEqual([200, 201]);
      expect(pair[0].body.items![0].ip).toBe(pair[1].body.items![0].ip);
    }

    // and they did meet: some transaction appended more than one request's event
    const batches = await api.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE stream_id = 'pool-hot' AND version > $1 GROUP BY transaction_id ORDER BY n DESC LIMIT 1",
      [start],
    );
    expect(batches.rows[0].n).toBeGreaterThan(1);

    const twice = await api.db.pool.query('SELECT ip FROM allocations GROUP BY ip HAVING count(*) > 1');
    expect(twice.rows).toEqual([]);
    const held = await api.db.pool.query<{ handle: string; ip: string }>(
      "SELECT handle, host(ip) AS ip FROM allocations WHERE pool = 'hot'",
    );
    const final = states[states.length - 1];
    expect(new Map(held.rows.map((r) => [r.handle, ipOf(r.ip)]))).toEqual(new Map(final.byHandle));
    expect(poolCounts(final).allocated).toBe(BigInt(held.rows.length));
  });

  async function streamVersion(): Promise<number> {
    const { rows } = await api.db.pool.query<{ v: number }>("SELECT max(version) AS v FROM events WHERE stream_id = 'pool-hot'");
    return rows[0].v;
  }
});
