import type { KubeObject } from '../kube-object';
import { trimObject } from './kube-transform';

/** Objects as a real API server sends them (trimmed from `kubectl get -o json`), with everything that must not travel. */
const managedFields = [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:spec': { 'f:containers': {} } } }];
/** What every kind keeps of its metadata, spelled out: a field dropped by mistake fails the comparison. */
const keptMeta = {
  name: 'web-0',
  namespace: 'apps',
  uid: '7d7ec5a8-1111-4e5c-9d61-000000000001',
  resourceVersion: '4711',
  generation: 3,
  creationTimestamp: '2026-01-02T03:04:05Z',
  labels: { app: 'web' },
  annotations: { 'ipam.ipledger.io/pool': 'rack-a' },
};
const meta = (extra: Record<string, unknown> = {}) => ({
  ...keptMeta,
  annotations: { ...keptMeta.annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{"env":"SECRET_VALUE_123"}' },
  managedFields,
  finalizers: ['kubernetes.io/pvc-protection'],
  ...extra,
});
const owner = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'owner-uid', controller: true, blockOwnerDeletion: true };
const container = { name: 'app', image: 'nginx', env: [{ name: 'PASSWORD', value: 'SECRET_VALUE_123' }], volumeMounts: [{ name: 'data' }] };

describe('the transform of each kind (what travels to NATS and the database)', () => {
  it('keeps of a Pod its identity, owners, node, phase, addresses and container state names, and nothing else of its containers or volumes', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: meta({ ownerReferences: [owner], deletionTimestamp: '2026-01-03T00:00:00Z' }),
      spec: { nodeName: 'worker-1', containers: [container], volumes: [{ name: 'data', secret: { secretName: 's' } }], nodeSelector: {} },
      status: {
        phase: 'Running',
        podIP: '10.0.0.5',
        podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
        containerStatuses: [{ name: 'app', image: 'nginx', state: { running: { startedAt: '2026-01-02T00:00:00Z' } } }, { name: 'side' }],
      },
    } as KubeObject;
    expect(trimObject('pod', pod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        ...keptMeta,
        deletionTimestamp: '2026-01-03T00:00:00Z',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'owner-uid', controller: true }],
      },
      spec: { nodeName: 'worker-1' },
      status: { phase: 'Running', podIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }], containerStatuses: [{ state: { running: {} } }] },
    });
  });

  it("keeps of a Pod's network selection elements only those naming an IPAMClaim, and of them only what a claim needs", () => {
    const networks = [
      { name: 'tenantred', namespace: 'nets', interface: 'net1', 'ipam-claim-reference': 'vm-a.tenantred', mac: '02:00:00:00:00:01' },
      { name: 'plain', ips: ['10.1.1.1/24'] },
    ];
    const pod = { metadata: meta({ annotations: { 'k8s.v1.cni.cncf.io/networks': JSON.stringify(networks), other: 'x' } }) } as KubeObject;
    expect(trimObject('pod', pod).metadata.annotations).toEqual({
      'k8s.v1.cni.cncf.io/networks': JSON.stringify([
        { name: 'tenantred', namespace: 'nets', interface: 'net1', 'ipam-claim-reference': 'vm-a.tenantred' },
      ]),
    });
    for (const value of ['tenantred@net1', JSON.stringify([{ name: 'plain' }]), '[{"ipam-claim-reference": broken']) {
      const other = { metadata: meta({ annotations: { 'k8s.v1.cni.cncf.io/networks': value } }) } as KubeObject;
      expect(trimObject('pod', other).metadata.annotations?.['k8s.v1.cni.cncf.io/networks']).toBeUndefined();
    }
  });

  it('keeps of a VirtualMachine and a VirtualMachineInstance their identity and owners, of an IPAMClaim its network and interface', () => {
    const vm = {
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachine',
      metadata: meta(),
      spec: { template: { spec: { volumes: [{ cloudInitNoCloud: { userData: 'SECRET_VALUE_123' } }] } } },
    } as KubeObject;
    expect(trimObject('virtualmachine', vm)).toEqual({ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: keptMeta });
    const vmi = {
      ...vm,
      kind: 'VirtualMachineInstance',
      metadata: meta({ ownerReferences: [{ ...owner, kind: 'VirtualMachine' }] }),
      status: { nodeName: 'n' },
    } as KubeObject;
    expect(trimObject('virtualmachineinstance', vmi)).toEqual({
      apiVersion: 'kubevirt.io/v1',
      kind: 'VirtualMachineInstance',
      metadata: {
        ...keptMeta,
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'VirtualMachine', name: 'web', uid: 'owner-uid', controller: true }],
      },
    });
    const claim = {
      apiVersion: 'k8s.cni.cncf.io/v1alpha1',
      kind: 'IPAMClaim',
      metadata: meta(),
      spec: { network: 'tenantred', interface: 'pod16367aacb67', extra: 1 },
      status: { ips: ['10.0.0.1/24'] },
    } as KubeObject;
    expect(trimObject('ipamclaim', claim)).toEqual({
      apiVersion: 'k8s.cni.cncf.io/v1alpha1',
      kind: 'IPAMClaim',
      metadata: keptMeta,
      spec: { network: 'tenantred', interface: 'pod16367aacb67' },
    });
  });

  it("keeps of a StatefulSet its size, ordinals and the template's pool choice, never the template's containers", () => {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta(),
      spec: {
        replicas: 3,
        ordinals: { start: 5 },
        serviceName: 'web',
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' }, annotations: { 'ipam.ipledger.io/pool': 'rack-b', 'checksum/config': 'abc' } },
          spec: { nodeSelector: { 'pool-group': 'rack-a' }, containers: [container], volumes: [{ name: 'data' }] },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' } }],
      },
      status: { replicas: 3, readyReplicas: 2 },
    } as KubeObject;
    expect(trimObject('statefulset', sts)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: keptMeta,
      spec: {
        replicas: 3,
        ordinals: { start: 5 },
        template: {
          metadata: { labels: { app: 'web' }, annotations: { 'ipam.ipledger.io/pool': 'rack-b' } },
          spec: { nodeSelector: { 'pool-group': 'rack-a' } },
        },
      },
    });
  });

  it('keeps of a Node its labels and its Ready condition only', () => {
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { ...meta(), namespace: undefined },
      spec: { podCIDR: '10.244.0.0/24', taints: [] },
      status: {
        addresses: [{ type: 'InternalIP', address: '192.168.1.1' }],
        images: [{ names: ['registry/secret-image'] }],
        conditions: [
          { type: 'MemoryPressure', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' },
          {
            type: 'Ready',
            status: 'True',
            reason: 'KubeletReady',
            message: 'kubelet is posting ready status',
            lastHeartbeatTime: 'x',
            lastTransitionTime: '2026-01-01T00:00:01Z',
          },
        ],
      },
    } as unknown as KubeObject;
    const { namespace: _none, ...clusterMeta } = keptMeta;
    expect(trimObject('node', node)).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: clusterMeta,
      status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' }] },
    });
  });

  it('keeps of an IPPool the spec fields the API applies, malformed values included (the applier refuses them)', () => {
    const addressSpace = {
      reuseDelaySeconds: 60,
      blockSize: 26,
      blockAffinity: 'strict',
      blockReleaseSeconds: '0',
      clusterSelector: 'region=east',
    };
    const pool = {
      apiVersion: 'ipam.ipledger.io/v1alpha1',
      kind: 'IPPool',
      metadata: { name: 'rack-a', uid: 'u', resourceVersion: '1', managedFields },
      spec: { cidr: 42, gateway: '10.0.0.1', nodeSelector: 'zone=a', reserved: ['10.0.0.2'], disabled: false, ...addressSpace, extra: 'x' },
      status: { allocated: 3 },
    } as unknown as KubeObject;
    expect(trimObject('ippool', pool)).toEqual({
      apiVersion: 'ipam.ipledger.io/v1alpha1',
      kind: 'IPPool',
      metadata: { name: 'rack-a', uid: 'u', resourceVersion: '1' },
      spec: { cidr: 42, gateway: '10.0.0.1', nodeSelector: 'zone=a', reserved: ['10.0.0.2'], disabled: false, ...addressSpace },
    });
  });

  it("keeps of a Namespace its labels and ipledger's annotations only", () => {
    const namespace = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { ...meta(), namespace: undefined },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    } as unknown as KubeObject;
    const { namespace: _none, ...clusterMeta } = keptMeta;
    expect(trimObject('namespace', namespace)).toEqual({ apiVersion: 'v1', kind: 'Namespace', metadata: clusterMeta });
  });

  it('keeps of a Deployment or ReplicaSet its identity and owners only, never its template or status', () => {
    const deploymentOwner = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      uid: 'd-uid',
      controller: true,
      blockOwnerDeletion: true,
    };
    const replicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: meta({ ownerReferences: [deploymentOwner] }),
      spec: { replicas: 3, template: { metadata: { annotations: { 'ipam.ipledger.io/ip-set': '3' } }, spec: { containers: [container] } } },
      status: { replicas: 3 },
    } as unknown as KubeObject;
    const { blockOwnerDeletion: _dropped, ...keptOwner } = deploymentOwner;
    expect(trimObject('replicaset', replicaSet)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { ...keptMeta, ownerReferences: [keptOwner] },
    });
    expect(trimObject('deployment', { ...replicaSet, kind: 'Deployment', metadata: meta() })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: keptMeta,
    });
  });

  it('leaves out what an object does not have, and survives parts of the wrong type', () => {
    const bare = {
      metadata: { name: 'n', uid: 'u', resourceVersion: '1', annotations: 'x', ownerReferences: 'y' },
    } as unknown as KubeObject;
    expect(trimObject('node', bare)).toEqual({ metadata: { name: 'n', uid: 'u', resourceVersion: '1' } });
    const odd = { ...bare, spec: { template: 'z', ordinals: 3 }, status: { podIPs: 'w', conditions: 'v' } } as unknown as KubeObject;
    expect(trimObject('statefulset', odd)).toEqual({ metadata: { name: 'n', uid: 'u', resourceVersion: '1' } });
    expect(trimObject('pod', odd)).toEqual({ metadata: { name: 'n', uid: 'u', resourceVersion: '1' } });
  });
});
