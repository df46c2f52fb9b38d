import { randomUUID } from 'node:crypto';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const GRACE_SECONDS = 2;
const HOUR_MS = 3600_000;

/**
 * Leak collection decides on the database's clock alone: sync markers here carry a watcher clock
 * set an hour off (their listedAt), which must move nothing.
 */
describe('leak grace with the watcher clock an hour off', () => {
  let bus: TestBus;
  let api: TestApi;
  let rv = 1;

  beforeAll(async () => {
    bus = await createTestBus('one_clock');
    api = await startTestApi('kubernetes_one_clock', { env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: String(GRACE_SECONDS) } });
    await api.http().post('/v1/pools').send({ name: 'pods', cidr: '10.80.0.0/24' }).expect(201);
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  /** a pod sync that lists no pod, listed (by the watcher's clock) `skewMs` away from now */
  const emptySync = async (skewMs: number) => {
    await bus.publisher.synced('pod', [], String(++rv), new Date(Date.now() + skewMs));
    await bus.idle();
  };
  /** an address for a pod the watcher sent (an allocation for a pod waits for it) */
  const allocate = async (handle: string) => {
    const podUid = randomUUID();
    const metadata = { name: handle, namespace: 'web', uid: podUid, resourceVersion: String(++rv) };
    await bus.publisher.change({ kind: 'pod', type: 'ADDED', object: { metadata } });
    await bus.publisher.flush();
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle, node: 'n1', namespace: 'web', pod: handle, podUid, pools: ['pods'] })
      .expect(201);
  };
  const held = async (handle: string) => (await api.http().get(`/v1/allocations/${handle}`)).status === 200;
  const pastGrace = () => new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 500));

  it('collects an address past the grace when the watcher clock runs an hour behind', async () => {
    await allocate('h-behind');
    await pastGrace();
    await emptySync(-HOUR_MS);
    expect(await held('h-behind')).toBe(true);
    await emptySync(-HOUR_MS);
    expect(await held('h-behind')).toBe(false);
  });

  it('keeps an address within the grace when the watcher clock runs an hour ahead, and collects it after', async () => {
    await allocate('h-ahead');
    await emptySync(HOUR_MS);
    await emptySync(HOUR_MS);
    await emptySync(HOUR_MS);
    expect(await held('h-ahead')).toBe(true);
    await pastGrace();
    await emptySync(HOUR_MS);
    expect(await held('h-ahead')).toBe(false);
    const { rows } = await api.db.pool.query(`SELECT data FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'h-ahead'`);
    expect(rows[0].data.reason).toMatchObject({ cause: 'pod-missing', graceSeconds: GRACE_SECONDS });
  });
});
