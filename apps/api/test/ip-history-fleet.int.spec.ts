import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * An address's history across a fleet (API.md "Clusters", "Isolated networks", "Claims"): every
 * entry names its cluster and its pool's network, a claim's reference events included, and
 * `?network=` narrows to one network's entries, the claims' too.
 */
describe('address history across clusters and isolated networks', () => {
  let api: TestApi;
  const root = { authorization: 'Bearer root' };
  const allocate = (cluster: string, body: Record<string, unknown>) =>
    api
      .http()
      .post(`/v1/clusters/${cluster}/allocations`)
      .set(root)
      .send({ node: 'worker-1', namespace: 'vms', pod: String(body.handle), ...body });
  const history = async (ip: string, network?: string) =>
    (
      await api
        .http()
        .get(`/v1/ips/${ip}/history`)
        .query(network ? { network } : {})
        .set(root)
        .expect(200)
    ).body.items.map((item: Record<string, unknown>) => [item.type, item.cluster, item.network, item.handle, item.claim ?? null]);

  beforeAll(async () => {
    api = await startTestApi('ip_history_fleet', { env: { IPAM_TOKENS: 'root:admin:ops' } });
    for (const network of ['blue', 'red'])
      await api
        .http()
        .post('/v1/pools')
        .set(root)
        .send({ name: `${network}-a`, cidr: '10.60.0.0/24', network })
        .expect(201);
  });
  afterAll(() => api.close());

  it('names the cluster and the network of each holder of the same address', async () => {
    await allocate('default', { handle: 'a', network: 'blue', ip: '10.60.0.10' }).expect(201);
    await allocate('east', { handle: 'b', network: 'red', ip: '10.60.0.10' }).expect(201);
    await api.http().delete('/v1/clusters/east/allocations/b').set(root).expect(204);
    expect(await history('10.60.0.10')).toEqual([
      ['IpAllocated', 'default', 'blue', 'a', null],
      ['IpAllocated', 'east', 'red', 'b', null],
      ['IpReleased', 'east', 'red', 'b', null],
    ]);
    expect(await history('10.60.0.10', 'red')).toEqual([
      ['IpAllocated', 'east', 'red', 'b', null],
      ['IpReleased', 'east', 'red', 'b', null],
    ]);
  });

  it("names a claim's reference events by the reference's cluster and the address's network, and narrows them by network", async () => {
    // vm-1 migrates from default to east in blue; vm-2 holds the same address in red
    await allocate('default', { handle: 'src', network: 'blue', claim: 'vm-1', ip: '10.60.0.20' }).expect(201);
    await allocate('east', { handle: 'dst', network: 'blue', claim: 'vm-1' }).expect(200);
    await allocate('east', { handle: 'other', network: 'red', claim: 'vm-2', ip: '10.60.0.20' }).expect(201);
    await api.http().delete('/v1/allocations/src').set(root).expect(204);
    const blue = [
      ['IpAllocated', 'default', 'blue', '@vm-1', null],
      ['ClaimReferenceAdded', 'default', 'blue', 'src', 'vm-1'],
      ['ClaimReferenceAdded', 'east', 'blue', 'dst', 'vm-1'],
    ];
    const red = [
      ['IpAllocated', 'east', 'red', '@vm-2', null],
      ['ClaimReferenceAdded', 'east', 'red', 'other', 'vm-2'],
    ];
    const dropped = ['ClaimReferenceDropped', 'default', 'blue', 'src', 'vm-1'];
    expect(await history('10.60.0.20')).toEqual([...blue, ...red, dropped]);
    expect(await history('10.60.0.20', 'blue')).toEqual([...blue, dropped]);
    expect(await history('10.60.0.20', 'red')).toEqual(red);
  });
});
