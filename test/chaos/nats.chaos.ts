import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api';
import { startNatsCluster, startPrivateNats, type NatsCluster, type PrivateNats } from '../support/private-nats';
import { createTestBus, type TestBus } from '../support/test-bus';
import { startTestApi, type TestApi } from '../support/test-api';
import { startWatcherProcess, type WatcherProcess } from '../support/watcher-process';
import { report, seconds, waitFor } from './chaos-report';

/** Short watches and resyncs: sync markers every few seconds, so leak collection and relists happen within the test. */
const FAST_WATCHER = { IPAM_WATCHER_TIMEOUT_SECONDS: '4', IPAM_WATCHER_RESYNC_SECONDS: '1' };

describe('chaos: NATS', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus | undefined;
  let api: TestApi | undefined;
  let watcher: WatcherProcess | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaos-nats-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
  });
  /** the watcher, the API and the bus of one scenario, before its NATS goes */
  /** A teardown step that may not finish (a client still waiting on a NATS node that is gone) is given up on, and said so. */
  const within = async (what: string, step: Promise<unknown> | undefined) => {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'gave up'>((resolve) => (timer = setTimeout(() => resolve('gave up'), 20_000)));
    const outcome = await Promise.race([Promise.resolve(step).catch(() => undefined), gaveUp]);
    clearTimeout(timer);
    if (outcome === 'gave up') process.stdout.write(`\n[chaos] teardown: ${what} did not finish within 20 s\n`);
  };
  const stopStack = async () => {
    // each part stops whatever another did: a cluster left running would keep Jest from exiting
    await within(
      'watcher stop',
      watcher?.stop().catch(() => watcher?.kill()),
    );
    await within('API close', api?.close());
    await within('bus close', bus?.close());
    watcher = api = bus = undefined;
  };
  afterAll(async () => {
    await kube.close();
    rmSync(dir, { recursive: true, force: true });
  });
  it('R4: NATS restarted while pods are deleted: no address leaks after the next syncs', async () => {
    const nats: PrivateNats = await startPrivateNats();
    try {
      bus = await createTestBus('chaos_r4', nats.url);
      api = await startTestApi('chaos_r4', { env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: '0' } });
      const http = api.http.bind(api);
      await http().post('/v1/pools').send({ name: 'r4', cidr: '10.103.0.0/24' }).expect(201);
      const pods = Array.from({ length: 40 }, (_, i) => kube.upsert('pod', { metadata: { name: `p-${i}`, namespace: 'r4' } }));
      watcher = await startWatcherProcess({
        ...bus.env,
        ...FAST_WATCHER,
        KUBECONFIG: kube.writeKubeconfig(dir),
        IPAM_WATCHER_KINDS: 'pod',
      });
      const db = api.db.pool;
      await waitFor(
        'every pod seen by the consumer',
        async () => Number((await db.query(`SELECT count(*) AS n FROM kubernetes_objects WHERE kind = 'pod'`)).rows[0].n) === 40,
      );
      // an allocation for a pod waits until the watcher has sent that pod
      for (const pod of pods) {
        await http()
          .post('/v1/allocations')
          .send({
            handle: `h-${pod.metadata.name}`,
            node: 'n',
            namespace: 'r4',
            pod: pod.metadata.name,
            podUid: pod.metadata.uid,
            pools: ['r4'],
          })
          .expect(201);
      }

      const remove = (from: number, to: number) => {
        for (let i = from; i < to; i++) kube.remove('pod', `r4/p-${i}`);
      };
      remove(0, 10);
      await nats.stop();
      remove(10, 30);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await nats.start();
      const restarted = Date.now();
      remove(30, 35);
      const held = async (from: number, to: number) =>
        Number(
          (
            await db.query(`SELECT count(*) AS n FROM allocations WHERE handle = ANY ($1)`, [
              Array.from({ length: to - from }, (_, i) => `h-p-${from + i}`),
            ])
          ).rows[0].n,
        );
      const released = await waitFor('every deleted pod released', async () => (await held(0, 35)) === 0, 120_000).catch(() => null);
      const recovery = Date.now() - restarted;
      const leaks = await held(0, 35);
      const wronglyReleased = 5 - (await held(35, 40));
      report('R4 NATS restarted while 35 of 40 pods are deleted', {
        leakedAddresses: leaks,
        wronglyReleased,
        allReleasedAfterRestartSeconds: released === null ? 'never' : seconds(recovery),
      });
      expect(leaks).toBe(0);
      expect(wronglyReleased).toBe(0);
    } finally {
      await stopStack();
      await nats.close();
    }
  });

  it('R5: a node of a three-node NATS cluster killed while Kubernetes objects change: no change lost, nothing restarted', async () => {
    const cluster: NatsCluster = await startNatsCluster(3);
    try {
      bus = await createTestBus('chaos_r5', cluster.url, { replicas: 3 });
      const info = await bus.jsm.streams.info(bus.names.stream);
      expect(info.config.num_replicas).toBe(3);
      api = await startTestApi('chaos_r5', { env: bus.env });
      const nodes = Array.from({ length: 20 }, (_, i) => `r5-node-${i}`);
      const label = (round: number) => {
        for (const name of nodes) kube.upsert('node', { metadata: { name, labels: { round: String(round) } } });
      };
      label(0);
      watcher = await startWatcherProcess({
        ...bus.env,
        ...FAST_WATCHER,
        KUBECONFIG: kube.writeKubeconfig(dir),
        IPAM_WATCHER_KINDS: 'node',
      });
      const http = api.http.bind(api);
      const behind = async (round: number) => {
        const answers = await Promise.all(nodes.map((name) => http().get(`/v1/nodes/${name}`)));
        return answers.filter((a) => a.status !== 200 || a.body.labels.round !== String(round)).length;
      };
      await waitFor('round 0 applied', async () => (await behind(0)) === 0);

      // the stream's leader goes: its replicas elect another, clients move to a live server
      const leader = (await bus.jsm.streams.info(bus.names.stream)).cluster?.leader ?? '';
      const victim = cluster.nodes[Number(/-(\d+)$/.exec(leader)?.[1] ?? 0)];
      const rounds = 12;
      let killedAt = 0;
      for (let round = 1; round <= rounds; round++) {
        label(round);
        if (round === 4) {
          await victim.kill();
          killedAt = Date.now();
        }
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const converged = await waitFor('the last round applied', async () => (await behind(rounds)) === 0, 120_000).catch(() => null);
      const recovery = Date.now() - killedAt;
      const lostChanges = await behind(rounds);
      const watcherReady = (await fetch(`${watcher.url}/readyz`)).status;
      const apiReady = (await http().get('/readyz')).status;
      report('R5 stream leader of a 3-node NATS cluster (3 replicas) killed while 20 Nodes change', {
        killed: leader || 'a node',
        lostChanges,
        lastChangeAppliedAfterKillSeconds: converged === null ? 'never' : seconds(recovery),
        watcherReadyz: watcherReady,
        apiReadyz: apiReady,
      });
      expect(lostChanges).toBe(0);
      expect(watcherReady).toBe(200);
      expect(apiReady).toBe(200);
    } finally {
      await stopStack();
      await cluster.close();
    }
  });
});
