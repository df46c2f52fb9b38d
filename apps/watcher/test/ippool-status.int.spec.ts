import { call, type ApiProcess } from '../../../test/support/api-process';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { eventually } from '../../../test/support/eventually';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';

/**
 * An IPPool shows its state: the API (a real process) publishes each IPPool's status, the watcher
 * (a real process) patches it into the status subresource of the fake Kubernetes API server.
 */
describe('IPPool status (fake Kubernetes API, watcher and API processes, real NATS and Postgres)', () => {
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let api: ApiProcess;

  const status = (name: string) => kube.get('ippool', name)?.status as any;
  const condition = (name: string, type: string) => status(name)?.conditions?.find((c: { type: string }) => c.type === type);
  const until = <T>(what: string, read: () => T, done: (value: T) => boolean, timeoutMs = 15_000) =>
    eventually(read, done, timeoutMs, what);

  beforeAll(async () => {
    stack = await startKubernetesStack('ippool_status', {
      kube: { token: 'status-token' },
      api: { from: 'dist', env: { IPAM_IPPOOL_STATUS_INTERVAL_MS: '500' } },
      watcherEnv: { IPAM_WATCHER_KINDS: 'ippool' },
    });
    ({ kube, api } = stack);
  });
  afterAll(() => stack?.close());

  it('shows an accepted IPPool Ready, with counts that follow allocations and the generation it reflects', async () => {
    kube.upsert('ippool', { metadata: { name: 'rack-a' }, spec: { cidr: '10.81.0.0/24', reserved: ['10.81.0.250-10.81.0.255'] } });
    const ready = await until(
      'Ready',
      () => status('rack-a'),
      (s) => s?.conditions?.length === 2,
    );
    expect(ready).toMatchObject({ capacity: '254', allocated: '0', free: '249', observedGeneration: 1 });
    expect(condition('rack-a', 'Ready')).toMatchObject({ status: 'True', reason: 'Accepted', observedGeneration: 1 });
    expect(condition('rack-a', 'Refused')).toMatchObject({ status: 'False' });
    expect(Date.parse(condition('rack-a', 'Ready').lastTransitionTime)).toBeGreaterThan(Date.now() - 60_000);

    for (const pod of ['web-0', 'web-1', 'web-2'])
      expect(
        (await call(api.base, 'POST', '/v1/allocations', { handle: pod, node: 'n1', namespace: 'default', pod, pools: ['rack-a'] })).status,
      ).toBe(201);
    await until(
      '3 allocated',
      () => status('rack-a'),
      (s) => s?.allocated === '3',
    );
    expect(status('rack-a')).toMatchObject({ capacity: '254', allocated: '3', free: '246' });
    expect((await call(api.base, 'DELETE', '/v1/allocations/web-1')).status).toBe(204);
    await until(
      '2 allocated',
      () => status('rack-a'),
      (s) => s?.allocated === '2',
    );

    const transition = condition('rack-a', 'Ready').lastTransitionTime;
    kube.upsert('ippool', {
      metadata: { name: 'rack-a' },
      spec: { cidr: '10.81.0.0/24', reserved: ['10.81.0.250-10.81.0.255'], disabled: true },
    });
    expect(kube.get('ippool', 'rack-a')!.metadata.generation).toBe(2);
    await until(
      'generation 2 observed',
      () => status('rack-a'),
      (s) => s?.observedGeneration === 2,
    );
    // still Ready: the transition time stays
    expect(condition('rack-a', 'Ready')).toMatchObject({ status: 'True', observedGeneration: 2, lastTransitionTime: transition });
  });

  it('shows a refused IPPool (a CIDR overlapping another pool) Refused, with the API code and message', async () => {
    kube.upsert('ippool', { metadata: { name: 'rack-b' }, spec: { cidr: '10.81.0.128/25' } });
    await until(
      'Refused',
      () => condition('rack-b', 'Refused'),
      (c) => c?.status === 'True',
    );
    expect(condition('rack-b', 'Refused')).toMatchObject({ reason: 'POOL_OVERLAP', message: expect.stringContaining('rack-a') });
    expect(condition('rack-b', 'Ready')).toMatchObject({ status: 'False', reason: 'POOL_OVERLAP' });
    expect(status('rack-b').capacity).toBeUndefined();
    // fixed: it becomes Ready
    kube.upsert('ippool', { metadata: { name: 'rack-b' }, spec: { cidr: '10.82.0.0/25' } });
    await until(
      'Ready after the fix',
      () => condition('rack-b', 'Ready'),
      (c) => c?.status === 'True',
    );
    expect(status('rack-b')).toMatchObject({ capacity: '126', observedGeneration: 2 });
    expect(condition('rack-b', 'Refused')).toMatchObject({ status: 'False' });
  });

  it('writes only status subresources, each patch naming the uid, and only when the status changed', async () => {
    expect(kube.statusPatches.length).toBeGreaterThan(0);
    expect(kube.statusPatches.filter((p) => p.status !== 200)).toEqual([]);
    for (const patch of kube.statusPatches) expect(JSON.parse(patch.body).metadata.uid).toBe(kube.get('ippool', patch.name)!.metadata.uid);
    // the API republishes every status now and then: the watcher writes none of them again
    const before = kube.statusPatches.length;
    await new Promise((resolve) => setTimeout(resolve, 9000));
    expect(kube.statusPatches.slice(before)).toEqual([]);
  });
});
