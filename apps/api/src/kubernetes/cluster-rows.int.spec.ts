import { randomUUID } from 'node:crypto';
import {
  findAllocationsByHandle,
  holdForNode,
  readHeldPastGrace,
  readMissedPodAddresses,
  recordNodeReadiness,
  recordSyncChunk,
} from '@ipledger/projections';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';

/**
 * The consumer's reads of one cluster against a real PostgreSQL holding two clusters' rows of the
 * same names: a pod sync misses only its own cluster's addresses, and a held address waits on its
 * own cluster's node. The end-to-end spec (apps/watcher/test/two-clusters.int.spec.ts) cannot tell
 * these apart, as the release that follows is scoped by the cluster too.
 */
describe("the Kubernetes consumer's rows, per cluster", () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('kubernetes_cluster_rows');
    await db.pool.query(`INSERT INTO pools (name, cidr, family, capacity, version, created_at, updated_at)
      VALUES ('p', '10.0.0.0/24', 4, 256, 1, now(), now())`);
    // the same handle, pod and node names in both clusters
    await db.pool.query(`INSERT INTO allocations (cluster, handle, family, ip, pool, node, namespace, pod, owner, allocated_at)
      VALUES ('east', 'h-web', 4, '10.0.0.1', 'p', 'worker-1', 'apps', 'web', 'pod', now() - interval '1 hour'),
             ('west', 'h-web', 4, '10.0.0.2', 'p', 'worker-1', 'apps', 'web', 'pod', now() - interval '1 hour')`);
  });
  afterAll(() => db.drop());

  it("misses, at one cluster's pod sync, only that cluster's addresses whose pod it did not list", async () => {
    // east lists no pod; west lists its apps/web
    const sync = async (cluster: string, items: Array<{ key: string; uid: string }>) =>
      (await recordSyncChunk(db.pool, cluster, {
        kind: 'pod',
        syncId: randomUUID(),
        resourceVersion: '1',
        listedAt: new Date().toISOString(),
        chunk: 0,
        chunks: 1,
        items,
      }))!;
    const east = await sync('east', []);
    const west = await sync('west', [{ key: 'apps/web', uid: 'uid-web' }]);
    expect((await readMissedPodAddresses(db.pool, east.syncId, 0)).map((m) => m.handle)).toEqual(['h-web']);
    expect(await db.pool.query(`SELECT cluster FROM kubernetes_syncs WHERE sync_id = $1`, [east.syncId])).toMatchObject({
      rows: [{ cluster: 'east' }],
    });
    expect(await readMissedPodAddresses(db.pool, west.syncId, 0)).toEqual([]);
    // the default cluster's sync lists apps/web too: neither east's nor west's address is its to miss
    const defaultSync = await sync('default', [{ key: 'apps/web', uid: 'uid-web' }]);
    expect(await readMissedPodAddresses(db.pool, defaultSync.syncId, 0)).toEqual([]);
    const emptyDefault = await sync('default', []);
    expect(await readMissedPodAddresses(db.pool, emptyDefault.syncId, 0)).toEqual([]);
  });

  it("releases a held address only when its own cluster's node stays not Ready past the grace", async () => {
    const position = { streamEpoch: 0, streamSequence: 1 };
    await recordNodeReadiness(db.pool, 'east', 'worker-1', false, position);
    await recordNodeReadiness(db.pool, 'default', 'worker-1', false, position);
    await recordNodeReadiness(db.pool, 'west', 'worker-1', true, position);
    await db.pool.query(`UPDATE kubernetes_node_readiness SET last_ready_at = now() - interval '1 hour'`);
    await holdForNode(db.pool, ['h-west'], { namespace: 'apps', name: 'web', uid: 'uid-w', node: 'worker-1' }, 'node-not-ready', 'west');
    await holdForNode(db.pool, ['h-east'], { namespace: 'apps', name: 'web', uid: 'uid-e', node: 'worker-1' }, 'node-not-ready', 'east');
    expect((await readHeldPastGrace(db.pool, 60)).map((h) => [h.cluster, h.handle])).toEqual([['east', 'h-east']]);
  });

  it('shows an allocation held for its node in its own cluster only', async () => {
    await holdForNode(db.pool, ['h-web'], { namespace: 'apps', name: 'web', uid: 'uid-e', node: 'worker-1' }, 'node-not-ready', 'east');
    const heldFor = async (cluster: string) => (await findAllocationsByHandle(db.pool, 'h-web', cluster)).map((a) => a.heldForNode ?? null);
    expect(await heldFor('east')).toEqual([{ node: 'worker-1', cause: 'node-not-ready', since: expect.any(String) }]);
    expect(await heldFor('west')).toEqual([null]);
  });
});
