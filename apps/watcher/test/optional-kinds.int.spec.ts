import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changeSubject, type KubeKind } from '@ipledger/messaging';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { eventually } from '../../../test/support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';

/**
 * KubeVirt's and IPAMClaim's kinds are followed by default, but only while the API server serves
 * them: on a cluster without their CustomResourceDefinitions the watcher is ready without them, and
 * once a CRD is installed its kind is listed and watched like any other.
 */
describe('kinds of optional CustomResourceDefinitions (fake Kubernetes API, real NATS)', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let watcher: WatcherProcess;

  const readyz = () =>
    fetch(`${watcher.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as { checks?: Record<string, string> } }));
  const lastOn = (kind: KubeKind) =>
    bus.jsm.streams.getMessage(bus.names.stream, { last_by_subj: changeSubject(bus.names, kind) }).then(
      (message) => JSON.parse(new TextDecoder().decode(message.data)) as { object?: { metadata: { name: string } } },
      () => null,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'optional-kinds-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
    bus = await createTestBus('optional_kinds');
    watcher = await startWatcherProcess({
      ...bus.env,
      KUBECONFIG: kube.writeKubeconfig(dir),
      IPAM_WATCHER_TIMEOUT_SECONDS: '2',
      IPAM_WATCHER_CRD_PROBE_SECONDS: '1',
    });
  });
  afterAll(async () => {
    await watcher?.stop();
    await bus?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is ready on a cluster without them, naming them not served', async () => {
    const ready = await eventually(readyz, (r) => r.status === 200, 20_000, 'the watcher to be ready');
    expect(ready.body.checks).toMatchObject({
      pod: 'synced',
      virtualmachine: 'not served',
      virtualmachineinstance: 'not served',
      ipamclaim: 'not served',
    });
    expect(await lastOn('virtualmachine')).toBeNull();
  });

  it('follows a kind from the moment its CustomResourceDefinition is installed', async () => {
    kube.installCrd('virtualmachine');
    kube.upsert('virtualmachine', { metadata: { name: 'vm-a', namespace: 'vms' }, spec: { runStrategy: 'Always' } });
    const published = await eventually(
      () => lastOn('virtualmachine'),
      (m) => m !== null,
      20_000,
      'the VirtualMachine on the stream',
    );
    expect(JSON.stringify(published)).toContain('vm-a');
    // its spec (disks, cloud-init user data) never travels
    expect(JSON.stringify(published)).not.toContain('runStrategy');
    const ready = await eventually(readyz, (r) => r.body.checks?.virtualmachine === 'synced', 20_000, 'virtualmachine synced');
    expect(ready.status).toBe(200);
    expect(ready.body.checks?.ipamclaim).toBe('not served');
  });
});
