/**
 * npm run bench:watcher-memory — the watcher's resident memory and bytes published once it has
 * listed BENCH_PODS pods shaped as a real cluster's (two containers with env values, volumes,
 * managedFields, conditions: about 6 KB of JSON each) from a fake Kubernetes API, over the real
 * NATS. What the watcher keeps of each object (its transform) decides both. Prints its peak resident
 * memory too; BENCH_WATCHER_NODE_OPTIONS is the watcher's NODE_OPTIONS (a V8 heap cap, as deploy/ sets).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKubeApi } from '../test/support/fake-kube-api';
import { createTestBus } from '../test/support/test-bus';
import { startWatcherProcess } from '../test/support/watcher-process';
import { residentMiB } from './support';

const PODS = Number(process.env.BENCH_PODS ?? 20000);

const env = Array.from({ length: 12 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-of-setting-${i}-`.repeat(3) }));
const container = (name: string) => ({
  name,
  image: `registry.example.com/team/${name}:1.2.3`,
  env,
  ports: [{ containerPort: 8080, protocol: 'TCP' }],
  resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '100m', memory: '256Mi' } },
  volumeMounts: [
    { name: 'data', mountPath: '/data' },
    { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
  ],
  livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
});
const managedFields = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:spec': { 'f:containers': Object.fromEntries(env.map((e) => [`k:{"name":"${e.name}"}`, {}])) } },
  },
  {
    manager: 'kubelet',
    operation: 'Update',
    apiVersion: 'v1',
    subresource: 'status',
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:status': { 'f:conditions': {}, 'f:podIPs': {} } },
  },
];

async function gauge(url: string, name: string): Promise<number> {
  const text = await fetch(`${url}/metrics`).then((r) => r.text());
  return Number(new RegExp(`^ipledger_watcher_${name} (\\d+)`, 'm').exec(text)![1]);
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watcher-memory-'));
  const kube = await startFakeKubeApi({ bookmarkIntervalMs: 5000 });
  const bus = await createTestBus('bench_watcher_memory');
  for (let i = 0; i < PODS; i++) {
    kube.upsert('pod', {
      metadata: {
        name: `pod-${i}`,
        namespace: `ns-${i % 100}`,
        labels: { app: `app-${i % 50}`, 'pod-template-hash': '5d8f7c9b4' },
        annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `app-${i % 50}-5d8f7c9b4`, uid: `rs-${i % 50}`, controller: true },
        ],
        managedFields,
      } as never,
      spec: {
        nodeName: `node-${i % 500}`,
        containers: [container('app'), container('sidecar')],
        volumes: [
          { name: 'data', emptyDir: {} },
          { name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        ],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      },
      status: {
        phase: 'Running',
        podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
        podIPs: [{ ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` }],
        conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
          type,
          status: 'True',
          lastTransitionTime: '2026-01-01T00:00:00Z',
        })),
        containerStatuses: ['app', 'sidecar'].map((name) => ({
          name,
          ready: true,
          restartCount: 0,
          image: `registry.example.com/team/${name}:1.2.3`,
          imageID: `sha256:${'a'.repeat(64)}`,
          started: true,
        })),
      },
    });
  }
  const objectBytes = Buffer.byteLength(JSON.stringify(kube.get('pod', 'ns-0/pod-0')));
  console.log(`fake Kubernetes API: ${PODS} pods of ${objectBytes} bytes of JSON each`);

  const started = performance.now();
  const watcher = await startWatcherProcess({
    ...bus.env,
    KUBECONFIG: kube.writeKubeconfig(dir),
    IPAM_WATCHER_KINDS: 'pod',
    NODE_OPTIONS: process.env.BENCH_WATCHER_NODE_OPTIONS ?? '',
  });
  await watcher.printed(/pod: listed \d+ objects/, 0, 600_000);
  const listed = (performance.now() - started) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const { state } = await bus.jsm.streams.info(bus.names.stream);
  console.log(
    `listed and published in ${listed.toFixed(1)} s: ${state.messages} messages, ${(state.bytes / 1e6).toFixed(1)} MB in the stream`,
  );
  const mb = async (name: string) => ((await gauge(watcher.url, name)) / 1e6).toFixed(0);
  console.log(
    `watcher after the list: resident memory ${await mb('process_resident_memory_bytes')} MB, heap used ${await mb('nodejs_heap_size_used_bytes')} MB, peak resident ${residentMiB(watcher.pid).peak.toFixed(0)} MiB`,
  );

  await watcher.stop();
  await bus.close();
  await kube.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
