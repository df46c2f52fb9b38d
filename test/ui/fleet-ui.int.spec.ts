import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../support/chromium';
import { startTestApi, type TestApi } from '../support/test-api';

/** Screenshots for people, not compared by the test; the folder is git-ignored. */
const ARTIFACTS = join(__dirname, '../../test-artifacts/ui');
const ADMIN = 'fleet-ui-admin';
const READER = 'fleet-ui-reader';
/** the page's globals the polls below read, run in the page (the test's own TypeScript has no DOM types) */
declare const document: { querySelector(selector: string): { dataset: Record<string, string | undefined> } | null };

/** One line of a table or a history as the page shows it: its cluster, its network, and its text. */
interface Line {
  cluster: string | null;
  network: string | null;
  text: string;
}

jest.setTimeout(180_000);

/**
 * The web UI across a fleet (issues 35, 36): two clusters, two isolated networks of the same CIDR,
 * a VM's claim migrating between the clusters. The filters narrow what is shown, every line names
 * its cluster and network as the API has them, and the claim shows both references.
 */
describe('web UI: the fleet, its networks and claims, in a real headless Chromium', () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  let page: Page;
  /** each pool's network, as the API lists them */
  const networkOf: Record<string, string> = {};

  const admin = { authorization: `Bearer ${ADMIN}` };
  const allocate = (cluster: string, handle: string, body: Record<string, unknown>) =>
    api
      .http()
      .post(`/v1/clusters/${cluster}/allocations`)
      .set(admin)
      .send({ handle, node: 'worker-1', namespace: 'shop', pod: handle, ...body });
  /** every address the API holds, as [ip, cluster, network] (the network is the pool's) */
  const heldByApi = async (query: Record<string, string> = {}) =>
    (await api.http().get('/v1/allocations').query(query).set(admin).expect(200)).body.items
      .map((a: { ip: string; cluster: string; pool: string }) => [a.ip, a.cluster, networkOf[a.pool]])
      .sort();
  const lines = (p: Page, selector: string): Promise<Line[]> =>
    p.locator(selector).evaluateAll((els) =>
      els.map((el) => ({
        cluster: el.querySelector('.badge.cluster')?.getAttribute('data-cluster') ?? null,
        network: el.querySelector('.badge.network')?.getAttribute('data-network') ?? null,
        text: el.textContent ?? '',
      })),
    );
  const shownAddresses = async () =>
    (
      await page
        .locator('table.addresses tbody tr')
        .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-ip'), r.getAttribute('data-cluster'), r.getAttribute('data-network')]))
    ).sort();
  /** the page has drawn the table for this place (a filter's change re-renders after the hash changes) */
  const addressesFor = (p: Page, cluster: string, network: string) =>
    p.waitForFunction(
      ([c, n]) => {
        const table = document.querySelector('table.addresses[data-loaded="yes"]');
        const select = (name: string) => (document.querySelector(`select[name=${name}]`) as unknown as { value: string } | null)?.value;
        return table !== null && select('cluster') === c && select('network') === n;
      },
      [cluster, network],
    );

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi('fleet_ui', { env: { IPAM_TOKENS: `${ADMIN}:admin,${READER}:reader` } });
    const { port } = api.app.getHttpServer().address();
    base = `http://127.0.0.1:${port}`;
    await api
      .http()
      .put('/v1/clusters/east')
      .set(admin)
      .send({ labels: { region: 'eu' } })
      .expect(200);
    await api
      .http()
      .put('/v1/clusters/west')
      .set(admin)
      .send({ labels: { region: 'us' } })
      .expect(200);
    // the same node name in both clusters, each its own node
    for (const [cluster, zone] of [
      ['east', 'e1'],
      ['west', 'w1'],
    ])
      await api.http().put(`/v1/clusters/${cluster}/nodes/worker-1`).set(admin).send({ labels: { zone } }).expect(200);
    // two isolated networks reusing one CIDR
    for (const network of ['blue', 'red']) {
      await api
        .http()
        .post('/v1/pools')
        .set(admin)
        .send({ name: `${network}-pods`, cidr: '10.40.0.0/24', network })
        .expect(201);
      networkOf[`${network}-pods`] = network;
    }
    // the same address held in both networks, one in each cluster; others in each cluster and network
    await allocate('east', 'web-e1', { network: 'blue', ip: '10.40.0.10' }).expect(201);
    await allocate('west', 'web-w1', { network: 'red', ip: '10.40.0.10' }).expect(201);
    await allocate('east', 'db-e1', { network: 'red' }).expect(201);
    await allocate('west', 'api-w1', { network: 'blue' }).expect(201);
    await allocate('west', 'api-w2', { network: 'blue' }).expect(201);
    // a VM live-migrating from east to west: one claim, the same address, two references
    const vm = { network: 'blue', claim: 'vm-db', namespace: 'vms', ip: '10.40.0.50' };
    await allocate('east', 'launcher-a', { ...vm, pod: 'virt-launcher-db-a' }).expect(201);
    await allocate('west', 'launcher-b', { ...vm, pod: 'virt-launcher-db-b', node: 'worker-2' }).expect(200);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await page.goto(`${base}/ui/#/fleet`);
    await page.fill('input[name=token]', READER);
    await page.click('form.token button[type=submit]');
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('lists every address of the fleet, each line naming its cluster and network as the API has them', async () => {
    await addressesFor(page, '', '');
    const all = await heldByApi();
    expect(all).toHaveLength(6);
    expect(await shownAddresses()).toEqual(all);
    // the names on each line, not just its attributes
    for (const line of await lines(page, 'table.addresses tbody tr')) {
      expect(line.text).toContain(line.cluster);
      expect(line.text).toContain(line.network);
    }
    // the summaries: three clusters (default always is), two networks with their pools' CIDRs
    expect(await page.locator('table.clusters tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cluster')))).toEqual([
      'default',
      'east',
      'west',
    ]);
    expect(await page.locator('table.clusters tr[data-cluster="east"]').textContent()).toContain('region=eu');
    expect(await page.locator('table.networks tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-network')))).toEqual([
      'blue',
      'red',
    ]);
    expect(await page.locator('table.networks tr[data-network="red"]').textContent()).toContain('10.40.0.0/24');
    await page.screenshot({ path: join(ARTIFACTS, 'fleet.png'), fullPage: true });
  });

  it('narrows to one cluster (on the server), then to one network, and the same address shows in its own network only', async () => {
    await page.selectOption('select[name=cluster]', 'west');
    await addressesFor(page, 'west', '');
    expect(await shownAddresses()).toEqual(await heldByApi({ cluster: 'west' }));
    expect((await shownAddresses()).map(([, cluster]) => cluster)).toEqual(['west', 'west', 'west']);

    await page.selectOption('select[name=network]', 'red');
    await addressesFor(page, 'west', 'red');
    expect(await shownAddresses()).toEqual([['10.40.0.10', 'west', 'red']]);
    expect(await page.locator('table.networks tbody tr').count()).toBe(1);
    expect(await page.locator('table.clusters tbody tr').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'fleet-west-red.png'), fullPage: true });

    await page.selectOption('select[name=cluster]', '');
    await addressesFor(page, '', 'red');
    expect(await shownAddresses()).toEqual((await heldByApi()).filter(([, , network]: string[]) => network === 'red'));
    // both selects have a label a screen reader names
    expect(await page.getByLabel('Cluster').count()).toBe(1);
    expect(await page.getByLabel('Network').count()).toBe(1);
  });

  it("names the claim and its two references (both clusters) on the claim's address", async () => {
    await page.selectOption('select[name=network]', 'blue');
    await addressesFor(page, '', 'blue');
    const row = page.locator('table.addresses tr[data-ip="10.40.0.50"]');
    expect(await row.getAttribute('data-cluster')).toBe('east');
    expect(await row.locator('.claim-held').getAttribute('data-claim')).toBe('vm-db');
    expect(
      await row.locator('.references li').evaluateAll((lis) => lis.map((li) => [li.getAttribute('data-cluster'), li.textContent])),
    ).toEqual([
      ['east', 'east vms/virt-launcher-db-a on worker-1'],
      ['west', 'west vms/virt-launcher-db-b on worker-2'],
    ]);
  });

  it("opens a holder's node in the holder's cluster (the same node name is another node in another cluster)", async () => {
    await page.selectOption('select[name=network]', 'red');
    await addressesFor(page, '', 'red');
    await page.click('table.addresses tr[data-ip="10.40.0.10"][data-cluster="west"] a:text("worker-1")');
    const node = page.locator('.node-page[data-node="worker-1"][data-cluster="west"] .facts');
    await node.waitFor();
    expect(await node.textContent()).toContain('zone=w1');
    expect(await node.textContent()).not.toContain('zone=e1');
  });

  it('shows the claim, its address and its two references, and the history of reference taken with cluster and pod', async () => {
    await page.goto(`${base}/ui/#/claims?cluster=west`);
    // the claim was made in east: west has it through its reference
    await page.locator('table.claims[data-loaded="yes"] tr[data-claim="vm-db"]').waitFor();
    await page.click('table.claims a:text("vm-db")');
    const references = page.locator('.claim-page[data-claim="vm-db"] table.claim-references tbody tr');
    await references.nth(1).waitFor();
    const claim = (await api.http().get('/v1/claims/vm-db').set(admin).expect(200)).body;
    expect(await references.evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-cluster'), r.getAttribute('data-pod')]))).toEqual(
      claim.references.map((r: { cluster: string; pod: string }) => [r.cluster, r.pod]),
    );
    expect(claim.references.map((r: { cluster: string }) => r.cluster)).toEqual(['east', 'west']);
    expect(await page.locator('table.claim-addresses tr[data-ip="10.40.0.50"] .badge.network').getAttribute('data-network')).toBe('blue');

    // the address's history: every line names cluster and network as the API does (its blue entries only)
    const history = page.locator('.ip-history[data-ip="10.40.0.50"] .events[data-loaded="yes"] li');
    await history.nth(2).waitFor();
    const byApi = (await api.http().get('/v1/ips/10.40.0.50/history').query({ network: 'blue' }).set(admin).expect(200)).body.items;
    const shown = await lines(page, '.ip-history[data-ip="10.40.0.50"] .events li');
    expect(shown.map(({ cluster, network }) => [cluster, network])).toEqual(
      byApi.map((item: { cluster: string; network: string }) => [item.cluster, item.network]),
    );
    expect(await page.locator('.ip-history[data-ip="10.40.0.50"] .events li .type').allTextContents()).toEqual([
      'IpAllocated',
      'ClaimReferenceAdded',
      'ClaimReferenceAdded',
    ]);
    expect(shown[1].text).toContain('vms/virt-launcher-db-a');
    expect(shown[2]).toMatchObject({ cluster: 'west', network: 'blue' });
    expect(shown[2].text).toContain('vms/virt-launcher-db-b on worker-2');
    expect(shown[2].text).toContain('reference taken of claim vm-db');
    await page.screenshot({ path: join(ARTIFACTS, 'claim.png'), fullPage: true });
  });

  it("names the holder's cluster, network and claim on the pool map, and the claim's references beside its history", async () => {
    await page.goto(`${base}/ui/#/pools/red-pods?ip=10.40.0.10`);
    await page.locator('[data-loaded="yes"][data-at="live"] .grid').waitFor();
    // red's 10.40.0.10 is west's; its history leaves out blue's holder of the same address (east's)
    const history = page.locator('.ip-history[data-ip="10.40.0.10"] .events[data-loaded="yes"] li');
    await history.first().waitFor();
    expect((await lines(page, '.ip-history[data-ip="10.40.0.10"] .events li')).map(({ cluster, network }) => [cluster, network])).toEqual([
      ['west', 'red'],
    ]);
    await page.locator('.cell[data-ip="10.40.0.10"]').hover();
    expect(await page.locator('.tooltip [data-holder="cluster"]').textContent()).toBe('west');
    expect(await page.locator('.tooltip [data-holder="network"]').textContent()).toBe('red');

    await page.goto(`${base}/ui/#/pools/blue-pods?ip=10.40.0.50`);
    const held = page.locator('.claim-of[data-claim="vm-db"] .references li');
    await held.nth(1).waitFor();
    expect(await held.evaluateAll((lis) => lis.map((li) => li.getAttribute('data-cluster')))).toEqual(['east', 'west']);
    await page.locator('.cell[data-ip="10.40.0.50"]').hover();
    expect(await page.locator('.tooltip [data-holder="claim"]').textContent()).toBe('vm-db');
    expect(await page.locator('.tooltip [data-holder="cluster"]').textContent()).toBe('east');
  });

  it("shows the source's reference dropped when the migration ends, with its cluster and pod, and the target's left", async () => {
    await api.http().delete('/v1/clusters/east/allocations/launcher-a').set(admin).expect(204);
    await page.goto(`${base}/ui/#/claims/vm-db`);
    const history = page.locator('.ip-history[data-ip="10.40.0.50"] .events[data-loaded="yes"] li');
    await history.nth(3).waitFor();
    const dropped = history.nth(3);
    expect(await dropped.getAttribute('data-type')).toBe('ClaimReferenceDropped');
    expect((await lines(page, '.ip-history[data-ip="10.40.0.50"] .events li'))[3]).toMatchObject({ cluster: 'east', network: 'blue' });
    expect(await dropped.textContent()).toContain('vms/virt-launcher-db-a on worker-1 (launcher-a) · reference dropped of claim vm-db');
    const references = page.locator('.claim-page table.claim-references tbody tr');
    await page.waitForFunction(() => document.querySelector('.claim-page table.claim-references tbody tr + tr') === null);
    expect(await references.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cluster')))).toEqual(['west']);
  });
});
