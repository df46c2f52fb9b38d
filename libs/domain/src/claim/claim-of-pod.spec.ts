import { claimOfPod, NETWORKS_ANNOTATION } from './claim-of-pod';

const launcher = {
  cluster: 'east',
  namespace: 'vms',
  labels: { 'kubevirt.io': 'virt-launcher' },
  ownerReferences: [{ kind: 'VirtualMachineInstance', name: 'vm-a', controller: true }],
};
const networks = (elements: unknown) => ({ [NETWORKS_ANNOTATION]: JSON.stringify(elements) });

describe('claimOfPod', () => {
  it("gives a virt-launcher pod's primary interface its VirtualMachineInstance's claim, in the pod's cluster", () => {
    expect(claimOfPod(launcher, { network: 'k8s-pod-network', interfaceName: 'eth0' })).toBe('kubevirt:east:vms:vm-a');
  });

  it("gives a launcher's other interfaces no VM claim, and no claim to a pod that is not a launcher", () => {
    expect(claimOfPod(launcher, { network: 'tenant', interfaceName: 'net1' })).toBeNull();
    expect(claimOfPod({ ...launcher, labels: {} }, { network: 'k8s-pod-network', interfaceName: 'eth0' })).toBeNull();
    const notControlled = { ...launcher, ownerReferences: [{ kind: 'VirtualMachineInstance', name: 'vm-a' }] };
    expect(claimOfPod(notControlled, { network: 'k8s-pod-network', interfaceName: 'eth0' })).toBeNull();
  });

  it("gives the attachment of a selection element with ipam-claim-reference the IPAMClaim's claim, matched on interface else name", () => {
    const pod = {
      ...launcher,
      annotations: networks([
        { name: 'tenantred', namespace: 'nets', interface: 'pod16367aacb67', 'ipam-claim-reference': 'vm-a.tenantred' },
        { name: 'blue', 'ipam-claim-reference': 'vm-a.blue' },
        { name: 'plain' },
      ]),
    };
    expect(claimOfPod(pod, { network: 'tenantred', interfaceName: 'pod16367aacb67' })).toBe('ipamclaim:east:vms:vm-a.tenantred');
    expect(claimOfPod(pod, { network: 'tenantred', interfaceName: 'net7' })).toBeNull();
    expect(claimOfPod(pod, { network: 'blue', interfaceName: 'net2' })).toBe('ipamclaim:east:vms:vm-a.blue');
    expect(claimOfPod(pod, { network: 'plain', interfaceName: 'net3' })).toBeNull();
  });

  it('reads no claim from the short form or a malformed annotation', () => {
    for (const value of ['tenantred@net1', '[{"name": 1}]', '[not json', '{"name":"x"}']) {
      const pod = { cluster: 'default', namespace: 'a', annotations: { [NETWORKS_ANNOTATION]: value } };
      expect(claimOfPod(pod, { network: 'tenantred', interfaceName: 'net1' })).toBeNull();
    }
  });
});
