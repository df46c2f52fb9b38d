import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startPrivateNats, type PrivateNats } from '../../../test/support/private-nats';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { eventually } from '../../../test/support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';

/**
 * NATS goes away and comes back: the watcher waits, says so on /readyz, and no change made meanwhile
 * is lost. The API stays ready throughout (REST, and so every CNI ADD, needs no bus); its
 * `/readyz?verbose` reports the bus down, then up.
 */
describe('watcher and consumer across a NATS outage', () => {
  let dir: string;
  let nats: PrivateNats;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let api: TestApi;
  let watcher: WatcherProcess;

  const labels = async (name: string) => (await api.http().get(`/v1/nodes/${name}`)).body.labels;
  /** the Node's labels once the API has its zone */
  const inZone = (name: string, zone: string, timeoutMs?: number) =>
    eventually(
      () => labels(name),
      (l) => l?.zone === zone,
      timeoutMs,
    );
  const readyz = () =>
    fetch(`${watcher.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { checks: Record<string, string> } }));

  const apiKubernetesCheck = async () => {
    const res = await api.http().get('/readyz?verbose');
    return { status: res.status, kubernetes: res.body.checks?.kubernetes };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-outage-'));
    nats = await startPrivateNats();
    kube = await startFakeKubeApi();
    bus = await createTestBus('outage', nats.url);
    api = await startTestApi('nats_outage', { env: bus.env });
    kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'a' } } });
    watcher = await startWatcherProcess({ ...bus.env, KUBECONFIG: kube.writeKubeconfig(dir), IPAM_WATCHER_KINDS: 'node' });
  });
  afterAll(async () => {
    await watcher?.stop();
    await api?.close();
    await bus?.close();
    await nats?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every change made while NATS was down', async () => {
    expect(await inZone('worker-1', 'a')).toEqual({ zone: 'a' });
    // the API's readiness, sampled from before the stop until after the bus is back
    const readiness: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        readiness.push((await api.http().get('/readyz')).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      await nats.stop();
      expect((await eventually(readyz, (r) => r.status === 503)).body.checks).toMatchObject({ nats: 'unreachable' });
      expect(await eventually(apiKubernetesCheck, (r) => r.kubernetes?.status === 'failed')).toEqual({
        status: 200,
        kubernetes: { status: 'failed', required: false, message: 'the NATS bus is unreachable' },
      });
      await api.http().get('/readyz').expect(200);
      kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'b' } } });
      kube.upsert('node', { metadata: { name: 'worker-2', labels: { zone: 'c' } } });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await nats.start();
      expect(await inZone('worker-1', 'b', 60_000)).toEqual({ zone: 'b' });
      expect(await inZone('worker-2', 'c', 30_000)).toEqual({ zone: 'c' });
      expect((await eventually(readyz, (r) => r.status === 200)).body.checks).toEqual({ nats: 'ok', node: 'synced' });
      expect(await eventually(apiKubernetesCheck, (r) => r.kubernetes?.status === 'ok')).toEqual({
        status: 200,
        kubernetes: { status: 'ok', required: false },
      });
    } finally {
      sampling = false;
      await sampler;
    }
    expect(readiness.length).toBeGreaterThan(10);
    expect(readiness.filter((status) => status !== 200)).toEqual([]);
  });

  // runs on from the test above
  it('keeps the changes made after the stream was lost (NATS restarted without its store): the stream is made again and the relist fills it', async () => {
    await bus.jsm.streams.delete(bus.names.stream);
    kube.upsert('node', { metadata: { name: 'worker-3', labels: { zone: 'd' } } });
    expect(await inZone('worker-3', 'd', 30_000)).toEqual({ zone: 'd' });
    expect(await eventually(apiKubernetesCheck, (r) => r.kubernetes?.status === 'ok')).toEqual({
      status: 200,
      kubernetes: { status: 'ok', required: false },
    });
  });
});
