import { parseCidr } from '@ipledger/ip';
import { validateClaimName, validateDns1123Label } from '@ipledger/domain';
import { addressOf, allocationOf, claimOf, clusterHandlePrefix, handleOf, poolNameOf } from './okep-mapping';

describe('the mapping of OKEP-6831 fields onto ipledger’s', () => {
  it('names a subnet’s pool deterministically, a DNS-1123 label for any network name, distinct per network and subnet', () => {
    const subnet = parseCidr('10.50.0.0/16');
    const names = ['cluster_udn_tenant-blue', 'A.B', '___', 'x'.repeat(253), 'Tenant_Blue'].map((n) => poolNameOf(n, subnet));
    for (const name of names) expect(() => validateDns1123Label(name, 'pool')).not.toThrow();
    expect(names[0]).toBe(poolNameOf('cluster_udn_tenant-blue', parseCidr('10.50.0.0/16')));
    expect(names[0]).toMatch(/^ext-cluster-udn-tenant-blue-[0-9a-f]{12}$/);
    expect(names[2]).toMatch(/^ext-[0-9a-f]{12}$/);
    expect(new Set(names).size).toBe(names.length);
    expect(poolNameOf('blue', parseCidr('10.50.0.0/16'))).not.toBe(poolNameOf('blue', parseCidr('10.51.0.0/16')));
  });

  it('makes workload_id within (cluster, network) a handle: readable, within 255 characters, distinct, under its cluster’s prefix', () => {
    expect(handleOf('east', 'blue', 'ns/pod')).toBe('ext:east:blue:ns/pod');
    const long = handleOf('east', 'n'.repeat(253), 'w');
    expect(long).toMatch(/^ext:east:[0-9a-f]{64}$/);
    const handles = [
      handleOf('east', 'blue', 'ns/pod'),
      handleOf('west', 'blue', 'ns/pod'),
      handleOf('east', 'red', 'ns/pod'),
      handleOf('east', 'blue', 'ns/pod2'),
      long,
      handleOf('east', 'n'.repeat(253), 'w2'),
    ];
    expect(new Set(handles).size).toBe(handles.length);
    for (const handle of handles) expect(handle.length).toBeLessThanOrEqual(255);
    expect(handles.filter((h) => h.startsWith(clusterHandlePrefix('east')))).toHaveLength(5);
  });

  it('makes owner within a network a claim name: readable when it can be, a digest otherwise, distinct per network and owner', () => {
    expect(claimOf('vmnet', 'tenant/vm-a')).toBe('ext:vmnet:tenant/vm-a');
    const claims = [
      claimOf('vmnet', 'tenant/vm-a'),
      claimOf('other', 'tenant/vm-a'),
      claimOf('vmnet', 'tenant/vm-b'),
      claimOf('cluster_udn_blue', 'tenant/vm-a'),
      claimOf('vmnet', 'vm a@tenant'),
      claimOf('other', 'vm a@tenant'),
      claimOf('vmnet', 'o'.repeat(253)),
    ];
    expect(claims[3]).toBe('ext:cluster_udn_blue:tenant/vm-a');
    expect(claims[4]).toMatch(/^ext-sha256:[0-9a-f]{64}$/);
    expect(new Set(claims).size).toBe(claims.length);
    for (const claim of claims) expect(validateClaimName(claim)).toBe(claim);
    expect(allocationOf({ cluster: 'east', network: 'vmnet', workloadId: 'w', requested: [], owner: 'tenant/vm-a' }, [])).toMatchObject({
      handle: 'ext:east:vmnet:w',
      claim: 'ext:vmnet:tenant/vm-a',
    });
  });

  it('takes an address bare or with a prefix length of its family, nothing else', () => {
    expect(addressOf('10.50.0.5')).toEqual(addressOf('10.50.0.5/16'));
    expect(addressOf('fd00::5/64')).toEqual(addressOf('fd00::5'));
    for (const bad of ['10.50.0.5/33', '10.50.0.5/', '10.50.0.5/1x', 'fd00::5/129', '10.50.0/16']) expect(() => addressOf(bad)).toThrow();
  });

  it('asks for a pod’s namespace and name when workload_id is Kubernetes’ namespace/pod, a digest otherwise', () => {
    const pools = [
      { name: 'p4', family: 4 as const },
      { name: 'p6', family: 6 as const },
    ];
    expect(allocationOf({ cluster: 'east', network: 'blue', workloadId: 'tenant/vm-a', requested: [] }, pools)).toEqual({
      handle: 'ext:east:blue:tenant/vm-a',
      cluster: 'east',
      node: 'east',
      namespace: 'tenant',
      pod: 'vm-a',
      network: 'blue',
      owner: 'external',
      pools: ['p4', 'p6'],
      families: [4, 6],
    });
    const opaque = allocationOf(
      { cluster: 'east', network: 'blue', workloadId: 'VM:A/uid-1/x', requested: [addressOf('10.0.0.1/8'), addressOf('fd00::1')] },
      pools,
    );
    expect(opaque).toMatchObject({
      namespace: 'external-ipam',
      pod: expect.stringMatching(/^workload-[0-9a-f]{16}$/),
      ips: ['10.0.0.1', 'fd00::1'],
    });
    expect(opaque).not.toHaveProperty('families');
  });
});
