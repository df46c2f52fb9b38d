import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cniCall, PLUGIN_BUILD } from '../../../test/support/cni-runner';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * docs/fleet.md "Credentials per cluster": each member cluster's CNI presents its own cluster's
 * ServiceAccount token, and the API asks that cluster's API server (IPAM_TOKEN_REVIEW_CLUSTERS)
 * about it, named by the request's `/v1/clusters/{cluster}` prefix; the default cluster's server
 * (KUBECONFIG) is asked for the routes without it. Three fake API servers, each vouching only for
 * the tokens it issued and each taking only its own admin credential (so each kubeconfig's is used).
 */
describe('node credentials per cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipledger-review-clusters-'));
  let home: FakeKubeApi;
  let east: FakeKubeApi;
  let west: FakeKubeApi;
  let api: TestApi;

  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const add = (handle: string) => ({
    handle,
    node: 'worker-1',
    namespace: 'web',
    pod: handle,
    podUid: randomUUID(),
    owner: 'pod',
    pools: ['p'],
  });
  const allocate = (token: string, prefix: string, handle: string) =>
    api.http().post(`${prefix}/allocations`).set(as(token)).send(add(handle));
  const reviews = () => [home, east, west].map((server) => server.tokenReviews.length);

  beforeAll(async () => {
    [home, east, west] = await Promise.all(['home', 'east', 'west'].map((name) => startFakeKubeApi({ token: `${name}-admin` })));
    const kubeconfig = (server: FakeKubeApi, name: string) => server.writeKubeconfig(mkdtempSync(join(dir, `${name}-`)));
    api = await startTestApi('node_credentials_per_cluster', {
      env: {
        IPAM_TOKENS: 'root:admin:ops',
        IPAM_TOKEN_REVIEW: 'on',
        KUBECONFIG: kubeconfig(home, 'home'),
        IPAM_TOKEN_REVIEW_CLUSTERS: `east=${kubeconfig(east, 'east')}, west=${kubeconfig(west, 'west')}`,
        // long: a kept verdict must not carry a token from one cluster into another
        IPAM_TOKEN_REVIEW_CACHE_MS: '300000',
      },
    });
    await api.http().post('/v1/pools').set(as('root')).send({ name: 'p', cidr: '10.71.0.0/24' }).expect(201);
  });
  afterAll(async () => {
    await api.close();
    await Promise.all([home, east, west].map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets an east node token allocate and release in east, bound to east, reviewed by east’s API server alone', async () => {
    const token = east.issueToken({ node: 'worker-1' });
    const before = reviews();
    const created = await allocate(token, '/v1/clusters/east', 'east-1').expect(201);
    expect(created.body.items[0]).toMatchObject({ cluster: 'east', node: 'worker-1', handle: 'east-1' });
    expect(reviews()).toEqual([before[0], before[1] + 1, before[2]]);
    expect(east.tokenReviews.at(-1)).toEqual({ status: 201, authenticated: true });
    // the default cluster holds nothing of it
    expect((await api.http().get('/v1/allocations/east-1').set(as('root'))).status).toBe(404);
    await api.http().delete('/v1/clusters/east/allocations/east-1').set(as(token)).expect(204);
    // bound to its node in east as well
    const elsewhere = await api
      .http()
      .post('/v1/clusters/east/allocations')
      .set(as(token))
      .send({ ...add('east-2'), node: 'worker-2' });
    expect({ status: elsewhere.status, code: elsewhere.body.code }).toEqual({ status: 403, code: 'NODE_FORBIDDEN' });
  });

  it('never takes an east token in west: west’s API server is asked, and does not know it', async () => {
    const token = east.issueToken({ node: 'worker-1' });
    await allocate(token, '/v1/clusters/east', 'east-3').expect(201);
    const before = reviews();
    const events = await api.eventCount();
    const refused = await allocate(token, '/v1/clusters/west', 'west-1');
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    // the kept east verdict is east's: west was asked (and said no); east was not asked again
    expect(reviews()).toEqual([before[0], before[1], before[2] + 1]);
    expect(west.tokenReviews.at(-1)).toEqual({ status: 201, authenticated: false });
    expect(await api.eventCount()).toBe(events);
    expect((await api.http().get('/metrics').expect(200)).text).toMatch(
      /ipledger_token_reviews_total\{outcome="refused",cluster="west"\} 1\n/,
    );
    // west's own token is west's
    const westToken = west.issueToken({ node: 'worker-1' });
    expect((await allocate(westToken, '/v1/clusters/west', 'west-2').expect(201)).body.items[0].cluster).toBe('west');
  });

  it('never takes an east token in the default cluster, with or without the prefix', async () => {
    const token = east.issueToken({ node: 'worker-1' });
    await allocate(token, '/v1/clusters/east', 'east-4').expect(201);
    const events = await api.eventCount();
    const before = reviews();
    for (const prefix of ['/v1', '/v1/clusters/default']) {
      const refused = await allocate(token, prefix, `default-${prefix.length}`);
      expect({ prefix, status: refused.status, code: refused.body.code }).toEqual({ prefix, status: 401, code: 'UNAUTHENTICATED' });
    }
    // the default cluster's API server (KUBECONFIG's) was asked, once: both are the default cluster's, its refusal kept
    expect(reviews()).toEqual([before[0] + 1, before[1], before[2]]);
    expect(await api.eventCount()).toBe(events);
    // and the default cluster's own token acts there
    const homeToken = home.issueToken({ node: 'worker-1' });
    expect((await allocate(homeToken, '/v1', 'home-1').expect(201)).body.items[0].cluster).toBe('default');
  });

  it('answers 401 (no review, no error) for a cluster with no API server configured', async () => {
    const token = east.issueToken({ node: 'worker-1' });
    const before = reviews();
    const refused = await allocate(token, '/v1/clusters/north', 'north-1');
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(reviews()).toEqual(before);
  });

  it('lets the CNI plugin with "cluster": "east" allocate, check and release in east with an east token', async () => {
    const tokenFile = join(dir, 'cni-token');
    writeFileSync(tokenFile, east.issueToken({ node: 'worker-1' }));
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    const config = {
      cniVersion: '1.0.0',
      name: 'pods',
      type: 'bridge',
      ipam: { type: 'ipledger-ipam', url: `http://127.0.0.1:${port}`, node: 'worker-1', cluster: 'east', tokenFile, pools: ['p'] },
    };
    const env = (command: string) => ({
      CNI_COMMAND: command,
      CNI_CONTAINERID: 'c1',
      CNI_IFNAME: 'eth0',
      CNI_NETNS: '/var/run/netns/x',
      CNI_ARGS: `K8S_POD_NAMESPACE=web;K8S_POD_NAME=cni-1;K8S_POD_UID=${randomUUID()}`,
    });
    // the built plugin, as a node runs it
    const added = await cniCall(PLUGIN_BUILD, env('ADD'), config);
    expect({ status: added.status, stdout: added.stdout }).toEqual({ status: 0, stdout: expect.stringContaining('10.71.0.') });
    const held = (await api.http().get('/v1/clusters/east/allocations/c1:eth0').set(as('root')).expect(200)).body.items;
    expect(held).toEqual([expect.objectContaining({ cluster: 'east', node: 'worker-1' })]);
    const { ips } = JSON.parse(added.stdout) as { ips: Array<{ address: string }> };
    const check = await cniCall(PLUGIN_BUILD, env('CHECK'), { ...config, prevResult: added.json });
    expect(check.status).toBe(0);
    expect(ips[0].address).toBe(`${held[0].ip}/${held[0].prefixLength}`);
    expect((await cniCall(PLUGIN_BUILD, env('DEL'), config)).status).toBe(0);
    expect((await api.http().get('/v1/clusters/east/allocations/c1:eth0').set(as('root'))).status).toBe(404);
  });
});
