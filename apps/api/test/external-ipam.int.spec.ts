import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { tcpSwitch, type TcpSwitch } from '../../../test/support/tcp-switch';
import { listenApi, startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * The external IPAM contract (API.md "External IPAM contract", OKEP-6831) as OVN-Kubernetes'
 * cluster-manager calls it, from two clusters (east and west, each with its own token), over the
 * real database: register, allocate, release, deregister, status, and every error as problem+json.
 */
describe('external IPAM contract (OKEP-6831)', () => {
  let api: TestApi;
  const EAST = 'east-token';
  const WEST = 'west-token';

  beforeAll(async () => {
    api = await startTestApi('external_ipam', {
      env: {
        IPAM_TOKENS: `${EAST}:allocator:east-cm,${WEST}:allocator:west-cm,r-token:reader,scoped-token:allocator:scoped:default,node-token:allocator:cni-n1:default:n1`,
      },
    });
  });
  afterAll(() => api.close());

  const call = (path: string, token: string, body: Record<string, unknown>) =>
    api.http().post(`/external-ipam/v1/${path}`).set('authorization', `Bearer ${token}`).send(body);
  const east = (path: string, body: Record<string, unknown>) => call(path, EAST, { cluster: 'east', ...body });
  const west = (path: string, body: Record<string, unknown>) => call(path, WEST, { cluster: 'west', ...body });
  const status = async () => (await api.http().get('/external-ipam/v1/status').set('authorization', 'Bearer r-token').expect(200)).body;

  /** An RFC 9457 answer of `status` and `code`, after which the log is as it was. */
  async function problem(
    status: number,
    code: string,
    send: () => Promise<{ status: number; headers: Record<string, string>; body: unknown }>,
  ) {
    const events = await api.eventCount();
    const answer = await send();
    expect({
      status: answer.status,
      type: answer.headers['content-type'],
      body: answer.body,
      events: await api.eventCount(),
    }).toEqual({
      status,
      type: 'application/problem+json; charset=utf-8',
      body: { type: `urn:ipledger:problem:${code}`, title: expect.any(String), status, detail: expect.any(String), code },
      events,
    });
    return answer.body as { detail: string };
  }

  describe('register', () => {
    it('makes one pool a subnet of the network, with exclude_ips reserved, and answers 204 with no body', async () => {
      const res = await east('register', { network: 'tenant_blue', subnets: ['10.50.0.0/16', 'fd00:50::/64'], exclude_ips: ['10.50.0.1'] });
      expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: '' });
      const pools = (await api.http().get('/v1/pools').set('authorization', 'Bearer r-token').expect(200)).body.items as Array<{
        cidr: string;
        network: string;
        reserved: string[];
        name: string;
      }>;
      expect(pools.map(({ cidr, network, reserved }) => ({ cidr, network, reserved }))).toEqual(
        expect.arrayContaining([
          { cidr: '10.50.0.0/16', network: 'tenant_blue', reserved: ['10.50.0.1'] },
          { cidr: 'fd00:50::/64', network: 'tenant_blue', reserved: [] },
        ]),
      );
      for (const { name } of pools) expect(name).toMatch(/^ext-tenant-blue-[0-9a-f]{12}$/);
    });

    it('answers 204 to the same subnets again, from the other cluster and in another order, and changes nothing', async () => {
      const events = await api.eventCount();
      expect((await west('register', { network: 'tenant_blue', subnets: ['fd00:50::/64', '10.50.0.0/16'] })).status).toBe(204);
      expect((await east('register', { network: 'tenant_blue', subnets: ['10.50.0.0/16', 'fd00:50::/64'] })).status).toBe(204);
      expect(await api.eventCount()).toBe(events);
    });

    it('refuses different subnets for a registered network (409), naming both', async () => {
      const body = await problem(409, 'POOL_EXISTS', () => west('register', { network: 'tenant_blue', subnets: ['10.50.0.0/17'] }));
      expect(body.detail).toMatch(/10\.50\.0\.0\/16, fd00:50::\/64.*10\.50\.0\.0\/17/);
    });

    it('refuses a malformed subnet or an excluded address outside every subnet (400)', async () => {
      await problem(400, 'INVALID_CIDR', () => east('register', { network: 'bad', subnets: ['10.60.0.0/33'] }));
      await problem(400, 'INVALID_ARGUMENT', () =>
        east('register', { network: 'bad', subnets: ['10.60.0.0/24'], exclude_ips: ['10.61.0.1'] }),
      );
      await problem(400, 'INVALID_ARGUMENT', () => east('register', { network: 'bad', subnets: 'not-a-list' }));
    });
  });

  describe('allocate', () => {
    it('gives one address a family with its subnet’s prefix length, never an excluded one', async () => {
      const res = await east('allocate', { network: 'tenant_blue', subnets: ['10.50.0.0/16'], workload_id: 'ns1/pod-a' });
      expect(res.status).toBe(200);
      expect(res.body.ips).toEqual([expect.stringMatching(/^10\.50\.\d+\.\d+\/16$/), expect.stringMatching(/^fd00:50::[0-9a-f]*\/64$/)]);
      expect(res.body.ips).not.toContain('10.50.0.1/16');
    });

    it('is idempotent on (network, cluster, workload_id): a retry gets the same addresses and appends nothing', async () => {
      const first = await east('allocate', { network: 'tenant_blue', workload_id: 'ns1/pod-b' });
      const events = await api.eventCount();
      const again = await east('allocate', { network: 'tenant_blue', workload_id: 'ns1/pod-b' });
      expect({ status: again.status, ips: again.body.ips, events: await api.eventCount() }).toEqual({
        status: 200,
        ips: first.body.ips,
        events,
      });
      // the same workload_id from another cluster is another workload
      const other = await west('allocate', { network: 'tenant_blue', workload_id: 'ns1/pod-b' });
      expect(other.status).toBe(200);
      expect(other.body.ips).toHaveLength(2);
      expect(other.body.ips.some((ip: string) => first.body.ips.includes(ip))).toBe(false);
    });

    it('gives exactly a requested address, written bare or with its prefix; 409 when held, 409 excluded, 400 outside', async () => {
      const bare = await east('allocate', { network: 'tenant_blue', workload_id: 'vm/a', requested_ips: ['10.50.7.7'] });
      expect({ status: bare.status, ips: bare.body.ips }).toEqual({ status: 200, ips: ['10.50.7.7/16'] });
      const prefixed = await west('allocate', { network: 'tenant_blue', workload_id: 'vm/b', requested_ips: ['10.50.7.8/16'] });
      expect({ status: prefixed.status, ips: prefixed.body.ips }).toEqual({ status: 200, ips: ['10.50.7.8/16'] });
      await problem(409, 'IP_IN_USE', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/c', requested_ips: ['10.50.7.7'] }),
      );
      await problem(409, 'IP_RESERVED', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/c', requested_ips: ['10.50.0.1'] }),
      );
      await problem(400, 'IP_NOT_IN_POOL', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/c', requested_ips: ['10.99.0.1'] }),
      );
      await problem(400, 'INVALID_IP', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/c', requested_ips: ['10.50.7.9/40'] }),
      );
    });

    it('gives exactly one requested address a family on a dual-stack network, both or neither; two of one family 400', async () => {
      const pair = ['fd00:50::20/64', '10.50.7.20'];
      const both = await east('allocate', { network: 'tenant_blue', workload_id: 'vm/dual', requested_ips: pair });
      expect({ status: both.status, ips: both.body.ips }).toEqual({ status: 200, ips: ['10.50.7.20/16', 'fd00:50::20/64'] });
      // one of the two held: refused, and the free one is not taken either
      await problem(409, 'IP_IN_USE', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/dual2', requested_ips: ['10.50.7.20', 'fd00:50::21'] }),
      );
      await problem(400, 'IP_NOT_IN_POOL', () =>
        west('allocate', { network: 'tenant_blue', workload_id: 'vm/dual2', requested_ips: ['10.99.0.1', 'fd00:50::21'] }),
      );
      const twice = await problem(400, 'INVALID_ARGUMENT', () =>
        west('allocate', {
          network: 'tenant_blue',
          workload_id: 'vm/dual2',
          requested_ips: ['10.50.7.21', 'fd00:50::21', '10.50.7.22/16'],
        }),
      );
      expect(twice.detail).toMatch(/10\.50\.7\.21 and 10\.50\.7\.22, 2 IPv4 addresses/);
      // released together; the pair is then free for another workload
      expect((await east('release', { network: 'tenant_blue', ips: both.body.ips, workload_id: 'vm/dual' })).status).toBe(204);
      const again = await west('allocate', {
        network: 'tenant_blue',
        workload_id: 'vm/dual2',
        requested_ips: ['10.50.7.21', 'fd00:50::21'],
      });
      expect({ status: again.status, ips: again.body.ips }).toEqual({ status: 200, ips: ['10.50.7.21/16', 'fd00:50::21/64'] });
      expect((await west('release', { network: 'tenant_blue', ips: again.body.ips, workload_id: 'vm/dual2' })).status).toBe(204);
    });

    it('co-holds a requested pair for the same owner from the other cluster, and refuses the owner another pair (409)', async () => {
      const pair = ['10.50.7.30', 'fd00:50::30'];
      const body = (cluster: string, ips: string[]) => ({
        network: 'tenant_blue',
        workload_id: `vm/${cluster}`,
        owner: 'vm-d',
        requested_ips: ips,
      });
      const source = await east('allocate', body('east', pair));
      const target = await west('allocate', body('west', pair));
      expect([source.status, source.body.ips, target.status, target.body.ips]).toEqual([
        200,
        ['10.50.7.30/16', 'fd00:50::30/64'],
        200,
        ['10.50.7.30/16', 'fd00:50::30/64'],
      ]);
      const other = await problem(409, 'IP_IN_USE', () => west('allocate', body('west', ['10.50.7.30', 'fd00:50::31'])));
      expect(other.detail).toMatch(/holds 10\.50\.7\.30, fd00:50::30, not fd00:50::31/);
      for (const [cluster, call] of [
        ['east', east],
        ['west', west],
      ] as const)
        expect((await call('release', { network: 'tenant_blue', ips: source.body.ips, workload_id: `vm/${cluster}` })).status).toBe(204);
    });

    it('answers 404 for a network nobody registered', async () => {
      const body = await problem(404, 'POOL_NOT_FOUND', () => east('allocate', { network: 'nowhere', workload_id: 'ns/p' }));
      expect(body.detail).toMatch(/network "nowhere" is not registered/);
    });

    it('answers 409 once the network is exhausted', async () => {
      expect((await east('register', { network: 'tiny', subnets: ['10.70.0.0/30'] })).status).toBe(204);
      expect((await east('allocate', { network: 'tiny', workload_id: 'w1' })).body.ips).toEqual(['10.70.0.1/30']);
      expect((await west('allocate', { network: 'tiny', workload_id: 'w2' })).body.ips).toEqual(['10.70.0.2/30']);
      await problem(409, 'POOL_EXHAUSTED', () => west('allocate', { network: 'tiny', workload_id: 'w3' }));
    });

    it('ignores unknown fields and metadata', async () => {
      const res = await east('allocate', { network: 'tenant_blue', workload_id: 'ns1/pod-z', metadata: { pod: 'x' }, future_field: 1 });
      expect(res.status).toBe(200);
    });
  });

  describe('owner references: a VM’s address across a live migration, within a cluster or between two', () => {
    const launcher = (cluster: typeof east, name: string, extra: Record<string, unknown> = {}) =>
      cluster('allocate', { network: 'vmnet', workload_id: `tenant/${name}`, owner: 'tenant/vm-a', ...extra });
    let address: string;

    it('gives the owner’s first workload an address, and the same again to a retry, appending nothing', async () => {
      expect((await east('register', { network: 'vmnet', subnets: ['10.60.0.0/24'] })).status).toBe(204);
      const first = await launcher(east, 'virt-launcher-a');
      expect(first.status).toBe(200);
      [address] = first.body.ips;
      expect(address).toMatch(/^10\.60\.0\.\d+\/24$/);
      const events = await api.eventCount();
      const again = await launcher(east, 'virt-launcher-a');
      expect({ status: again.status, ips: again.body.ips, events: await api.eventCount() }).toEqual({
        status: 200,
        ips: [address],
        events,
      });
    });

    it('gives the same owner’s workload in the other cluster the same address (a second reference), and refuses a third (409)', async () => {
      const target = await launcher(west, 'virt-launcher-b');
      expect({ status: target.status, ips: target.body.ips }).toEqual({ status: 200, ips: [address] });
      // each reference in its caller's cluster, as every allocation through this contract
      const claims = (await api.http().get('/v1/claims').set('authorization', 'Bearer r-token').expect(200)).body.items;
      const vm = claims.find((claim: { name: string }) => claim.name.endsWith('tenant/vm-a'));
      expect(vm.references.map((r: { cluster: string }) => r.cluster)).toEqual(['east', 'west']);
      await problem(409, 'CLAIM_REFERENCES_FULL', () => launcher(east, 'virt-launcher-c'));
    });

    it('refuses the owner’s address to a request without that owner (409), with or without another owner', async () => {
      const ip = address.split('/')[0];
      await problem(409, 'IP_IN_USE', () => east('allocate', { network: 'vmnet', workload_id: 'other', requested_ips: [ip] }));
      await problem(409, 'IP_IN_USE', () =>
        east('allocate', { network: 'vmnet', workload_id: 'other', owner: 'tenant/vm-z', requested_ips: [ip] }),
      );
      await problem(409, 'POOL_IN_USE', () => east('deregister', { network: 'vmnet' }));
    });

    it('keeps the address held when the source releases (migration done), and when an aborted target releases', async () => {
      expect((await east('release', { network: 'vmnet', ips: [address], workload_id: 'tenant/virt-launcher-a' })).status).toBe(204);
      const ip = address.split('/')[0];
      await problem(409, 'IP_IN_USE', () => east('allocate', { network: 'vmnet', workload_id: 'other', requested_ips: [ip] }));
      // east holds nothing on vmnet now
      expect((await east('deregister', { network: 'vmnet' })).status).toBe(204);
      // a migration back to east, aborted: its target's release leaves west's reference holding the address
      expect((await launcher(east, 'virt-launcher-d')).body.ips).toEqual([address]);
      expect((await east('release', { network: 'vmnet', ips: [address], workload_id: 'tenant/virt-launcher-d' })).status).toBe(204);
      await problem(409, 'IP_IN_USE', () => east('allocate', { network: 'vmnet', workload_id: 'other', requested_ips: [ip] }));
    });

    it('frees the address once its last reference is released', async () => {
      expect((await west('release', { network: 'vmnet', ips: [address], workload_id: 'tenant/virt-launcher-b' })).status).toBe(204);
      const taken = await east('allocate', { network: 'vmnet', workload_id: 'other', requested_ips: [address] });
      expect({ status: taken.status, ips: taken.body.ips }).toEqual({ status: 200, ips: [address] });
    });

    it('co-holds a requested address for the same owner (a VM with a static address), counted once in usage', async () => {
      const a = await east('allocate', {
        network: 'vmnet',
        workload_id: 'tenant/l-1',
        owner: 'tenant/vm-b',
        requested_ips: ['10.60.0.200'],
      });
      const b = await west('allocate', {
        network: 'vmnet',
        workload_id: 'tenant/l-2',
        owner: 'tenant/vm-b',
        requested_ips: ['10.60.0.200/24'],
      });
      expect([a.status, a.body.ips, b.status, b.body.ips]).toEqual([200, ['10.60.0.200/24'], 200, ['10.60.0.200/24']]);
    });
  });

  describe('release and deregister', () => {
    it('releases (204), again (204), and the address is free for another workload', async () => {
      expect((await east('register', { network: 'relnet', subnets: ['10.80.0.0/24'] })).status).toBe(204);
      const { ips } = (await east('allocate', { network: 'relnet', workload_id: 'w', requested_ips: ['10.80.0.9'] })).body;
      expect((await east('release', { network: 'relnet', ips, workload_id: 'w' })).status).toBe(204);
      expect((await east('release', { network: 'relnet', ips, workload_id: 'w' })).status).toBe(204);
      const taken = await west('allocate', { network: 'relnet', workload_id: 'w', requested_ips: ['10.80.0.9'] });
      expect({ status: taken.status, ips: taken.body.ips }).toEqual({ status: 200, ips: ['10.80.0.9/24'] });
    });

    it('refuses deregister while the cluster holds addresses on the network (409) and frees nothing; 204 once released', async () => {
      const body = await problem(409, 'POOL_IN_USE', () => west('deregister', { network: 'relnet' }));
      expect(body.detail).toMatch(/cluster "west" still holds addresses on network "relnet" \(1 allocation or owner reference\)/);
      // still held: the same requested address is refused to anyone else
      await problem(409, 'IP_IN_USE', () => east('allocate', { network: 'relnet', workload_id: 'x', requested_ips: ['10.80.0.9'] }));
      // east holds nothing on relnet any more
      expect((await east('deregister', { network: 'relnet' })).status).toBe(204);
      expect((await west('release', { network: 'relnet', ips: ['10.80.0.9/24'], workload_id: 'w' })).status).toBe(204);
      expect((await west('deregister', { network: 'relnet' })).status).toBe(204);
      expect((await west('deregister', { network: 'never-registered' })).status).toBe(204);
    });
  });

  it('holds the same address in two networks of the same subnet at once', async () => {
    expect((await east('register', { network: 'red', subnets: ['10.90.0.0/24'] })).status).toBe(204);
    expect((await west('register', { network: 'green', subnets: ['10.90.0.0/24'] })).status).toBe(204);
    const red = await east('allocate', { network: 'red', workload_id: 'p', requested_ips: ['10.90.0.5'] });
    const green = await west('allocate', { network: 'green', workload_id: 'p', requested_ips: ['10.90.0.5'] });
    expect([red.status, red.body.ips, green.status, green.body.ips]).toEqual([200, ['10.90.0.5/24'], 200, ['10.90.0.5/24']]);
    await problem(409, 'IP_IN_USE', () => west('allocate', { network: 'red', workload_id: 'q', requested_ips: ['10.90.0.5'] }));
  });

  it('status: versions, capabilities, each network’s subnets, and usage by family', async () => {
    const body = await status();
    expect(body).toMatchObject({
      api_version: 'v1',
      supported_api_versions: ['v1'],
      ready: true,
      capabilities: ['owner-references', 'requested-ips'],
    });
    expect(body.pools).toEqual({
      tenant_blue: { subnets: expect.arrayContaining(['10.50.0.0/16', 'fd00:50::/64']) },
      tiny: { subnets: ['10.70.0.0/30'] },
      relnet: { subnets: ['10.80.0.0/24'] },
      red: { subnets: ['10.90.0.0/24'] },
      green: { subnets: ['10.90.0.0/24'] },
      vmnet: { subnets: ['10.60.0.0/24'] },
    });
    // IPv4 held: tenant_blue pod-a, pod-b (east, west), vm/a, vm/b, pod-z; tiny 2; red 1; green 1;
    // vmnet 2 (vm-a's old address, now another workload's, and vm-b's, co-held by two references, once)
    // IPv4 free: /16 65534 - 1 excluded - 6 held; /30 0; /24s 254 (relnet) + 253 + 253 + 252
    expect(body.usage.IPv4).toEqual({ allocated: 12, available: 65533 - 6 + 254 + 253 + 253 + 252 });
    // IPv6: one each for pod-a, pod-b (east, west), pod-z; a /64 does not fit a JSON number
    expect(body.usage.IPv6).toEqual({ allocated: 4 });
  });

  describe('access and errors', () => {
    it('needs a token (401) on every route, an allocator to allocate (403), any role for status', async () => {
      await problem(401, 'UNAUTHENTICATED', () => api.http().post('/external-ipam/v1/allocate').send({}));
      await problem(401, 'UNAUTHENTICATED', () => api.http().get('/external-ipam/v1/status'));
      await problem(403, 'FORBIDDEN', () => call('allocate', 'r-token', { cluster: 'east', network: 'tenant_blue', workload_id: 'r' }));
      await problem(403, 'FORBIDDEN', () => call('register', 'r-token', { cluster: 'east', network: 'n', subnets: ['10.1.0.0/24'] }));
    });

    it('refuses a token scoped to a cluster that names another cluster (403 CLUSTER_FORBIDDEN)', async () => {
      await problem(403, 'CLUSTER_FORBIDDEN', () =>
        call('allocate', 'scoped-token', { cluster: 'east', network: 'tenant_blue', workload_id: 's' }),
      );
      const own = await call('allocate', 'scoped-token', { cluster: 'default', network: 'tenant_blue', workload_id: 's' });
      expect(own.status).toBe(200);
    });

    it('refuses a credential bound to a node (the CNI plugin’s) to register, deregister or allocate (403 NODE_FORBIDDEN)', async () => {
      const node = (path: string, body: Record<string, unknown>) => call(path, 'node-token', { cluster: 'default', ...body });
      await problem(403, 'NODE_FORBIDDEN', () => node('register', { network: 'squat', subnets: ['10.31.0.0/24'] }));
      await problem(403, 'NODE_FORBIDDEN', () => node('deregister', { network: 'tenant_blue' }));
      await problem(403, 'NODE_FORBIDDEN', () => node('allocate', { network: 'tenant_blue', workload_id: 'n1-pod' }));
    });

    it('answers malformed input, a body that is no object, an oversized field and an unknown route as problems', async () => {
      await problem(400, 'INVALID_ARGUMENT', () => east('allocate', { network: 'tenant_blue' }));
      await problem(400, 'INVALID_ARGUMENT', () =>
        api
          .http()
          .post('/external-ipam/v1/allocate')
          .set('authorization', `Bearer ${EAST}`)
          .set('content-type', 'application/json')
          .send('[1]'),
      );
      await problem(400, 'INVALID_ARGUMENT', () => east('allocate', { network: 'tenant_blue', workload_id: 'x'.repeat(513) }));
      await problem(400, 'INVALID_NAME', () => call('allocate', EAST, { cluster: 'East_1', network: 'tenant_blue', workload_id: 'x' }));
      await problem(404, 'NOT_FOUND', () => api.http().get('/external-ipam/v1/nothing').set('authorization', 'Bearer r-token'));
    });
  });

  it('records allocations in the audit history like any other, by the caller’s token', async () => {
    const { ips } = (await east('allocate', { network: 'red', workload_id: 'audited', requested_ips: ['10.90.0.77'] })).body;
    expect(ips).toEqual(['10.90.0.77/24']);
    const history = await api.http().get('/v1/ips/10.90.0.77/history?network=red').set('authorization', 'Bearer r-token').expect(200);
    expect(history.body.items).toEqual([expect.objectContaining({ type: 'IpAllocated', handle: 'ext:east:red:audited', network: 'red' })]);
  });
});

/** The database goes away under the API (its connections reset, new ones refused): the caller is told to come back. */
describe('external IPAM contract while the database is away', () => {
  let db: TestDatabase;
  let database: TcpSwitch;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase('external_ipam_away');
    const url = new URL(db.url);
    database = await tcpSwitch({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = database.hostPort;
    app = await listenApi(url.toString());
    await request(app.getHttpServer())
      .post('/external-ipam/v1/register')
      .send({ network: 'n', subnets: ['10.40.0.0/24'], cluster: 'c' })
      .expect(204);
  });
  afterAll(async () => {
    await app.close();
    await db.drop();
  });

  it('answers 503 problem+json with Retry-After to an allocation, and status 200 with ready false', async () => {
    await database.cut();
    const res = await request(app.getHttpServer())
      .post('/external-ipam/v1/allocate')
      .send({ network: 'n', workload_id: 'w', cluster: 'c' });
    expect({ status: res.status, type: res.headers['content-type'], retryAfter: res.headers['retry-after'], body: res.body }).toEqual({
      status: 503,
      type: 'application/problem+json; charset=utf-8',
      retryAfter: expect.stringMatching(/^\d+$/),
      body: expect.objectContaining({ type: 'urn:ipledger:problem:UNAVAILABLE', status: 503, code: 'UNAVAILABLE' }),
    });
    const status = await request(app.getHttpServer()).get('/external-ipam/v1/status');
    expect({ status: status.status, body: status.body }).toEqual({
      status: 200,
      body: { api_version: 'v1', supported_api_versions: ['v1'], capabilities: ['owner-references', 'requested-ips'], ready: false },
    });
  });
});
