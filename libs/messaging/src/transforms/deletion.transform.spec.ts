import type { KubeObject } from '../kube-object';
import { forDeletion } from './deletion.transform';
import { trimPod } from './pod.transform';

describe('what a DELETED carries when the watcher reports it from its store (forDeletion)', () => {
  const metadata = {
    name: 'web-0',
    namespace: 'apps',
    uid: '7d7ec5a8-1111-4e5c-9d61-000000000001',
    resourceVersion: '4711',
    labels: { app: 'web' },
    annotations: { 'ipam.ipledger.io/pool': 'rack-a' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'owner-uid' }],
  };

  it("keeps of a Pod its identity, its node and its containers' states: what deciding to hold its address reads", () => {
    const pod = trimPod({
      metadata,
      spec: { nodeName: 'worker-1', hostNetwork: false },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.5' }],
        initContainerStatuses: [{ state: { terminated: { exitCode: 0 } } }],
        containerStatuses: [{ state: { running: { startedAt: 'x' } } }],
      },
    });
    expect(forDeletion('pod', pod)).toEqual({
      metadata: { name: 'web-0', namespace: 'apps', uid: metadata.uid, resourceVersion: '4711' },
      spec: { nodeName: 'worker-1' },
      status: { initContainerStatuses: [{ state: { terminated: {} } }], containerStatuses: [{ state: { running: {} } }] },
    });
  });

  it('keeps of every other kind its identity only', () => {
    const pool = { metadata: { ...metadata, namespace: undefined, name: 'rack-a' }, spec: { cidr: '10.0.0.0/24' } } as KubeObject;
    expect(forDeletion('ippool', pool)).toEqual({ metadata: { name: 'rack-a', uid: metadata.uid, resourceVersion: '4711' } });
  });
});
