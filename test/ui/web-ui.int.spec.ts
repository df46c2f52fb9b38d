import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type Browser } from '../support/chromium';
import { poolName, seedPools } from '../support/seed-pools';
import { startTestApi, type TestApi } from '../support/test-api';

/** The instant right after one the API gave (its times are to the millisecond), as the UI's time control makes it. */
const justAfter = (iso: string) => new Date(Date.parse(iso) + 1).toISOString();

/** Screenshots for people (and the README), not compared by the test; the folder is git-ignored. */
const ARTIFACTS = join(__dirname, '../../test-artifacts/ui');
const ADMIN = 'ui-admin-token';
const READER = 'ui-reader-token';
/** evaluated in the page (the test's own TypeScript has no DOM types) */
const STORED_TOKEN = `sessionStorage.getItem('ipledger.token')`;
/** the little of the page's globals the polls below read, run in the page */
declare const document: {
  querySelector(selector: string): { dataset: Record<string, string | undefined> } | null;
  querySelectorAll(selector: string): { length: number };
};
declare const location: { hash: string };

/*
 * Polls in the page with functions: Playwright evaluates a string predicate with eval there, which
 * the page's Content-Security-Policy (script-src 'self') refuses, as it should.
 */
const rowCount = (p: Page, count: number) =>
  p.waitForFunction((n) => document.querySelectorAll('table.pools[data-loaded="yes"] tbody tr').length === n, count);
const hashIncludes = (p: Page, part: string) => p.waitForFunction((text) => location.hash.includes(text), part);
const firstPool = (p: Page, name: string) =>
  p.waitForFunction((pool) => document.querySelector('table.pools[data-loaded="yes"] tr[data-pool]')?.dataset.pool === pool, name);

jest.setTimeout(180_000);

describe('web UI at /ui, in a real headless Chromium', () => {
  let api: TestApi;
  let browser: Browser;
  let base: string;
  let page: Page;
  const held: Record<string, string> = {};
  let released: string;
  /** what Chromium refused under the Content-Security-Policy, on every page of the run (/ui and /docs) */
  const refusedByCsp: string[] = [];

  const admin = () => ({ authorization: `Bearer ${ADMIN}` });
  const allocate = async (pod: string, pool: string, namespace = 'shop', node = 'worker-1') => {
    const res = await api
      .http()
      .post('/v1/allocations')
      .set(admin())
      .send({ handle: `${pod}:eth0`, node, namespace, pod, pools: [pool], families: [pool === 'ui-v6' ? 6 : 4] })
      .expect(201);
    held[pod] = res.body.items[0].ip;
  };
  const mapReady = (p: Page, at: string) => p.locator(`[data-loaded="yes"][data-at="${at}"] .grid`).waitFor();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    api = await startTestApi('web_ui', { env: { IPAM_TOKENS: `${ADMIN}:admin,${READER}:reader` } });
    const { port } = api.app.getHttpServer().address();
    base = `http://127.0.0.1:${port}`;
    // 1. pools, allocations, a StatefulSet range and a release, through the API
    const pools = [
      { name: 'ui-web', cidr: '10.30.0.0/24', labels: { zone: 'a', tier: 'web' }, reserved: ['10.30.0.1', '10.30.0.250-10.30.0.254'] },
      {
        name: 'ui-batch',
        cidr: '10.31.0.0/16',
        labels: { zone: 'b', tier: 'batch' },
        nodeSelector: 'zone=b',
        reserved: ['10.31.0.1-10.31.0.255'],
      },
      { name: 'ui-v6', cidr: 'fd00:30::/64', labels: { zone: 'a', tier: 'web' } },
      { name: 'ui-db', cidr: '10.32.0.0/27', labels: { zone: 'a', tier: 'db' }, reserved: ['10.32.0.1'] },
      { name: 'ui-edge', cidr: '10.33.0.0/28', labels: { zone: 'a', tier: 'edge' }, disabled: true },
    ];
    for (const pool of pools) await api.http().post('/v1/pools').set(admin()).send(pool).expect(201);
    await api
      .http()
      .put('/v1/nodes/worker-1')
      .set(admin())
      .send({ labels: { zone: 'a' } })
      .expect(200);
    await api
      .http()
      .put('/v1/nodes/worker-2')
      .set(admin())
      .send({ labels: { zone: 'b' } })
      .expect(200);
    await api.http().put('/v1/statefulsets/db/pg').set(admin()).send({ replicas: 5, pool: 'ui-web' }).expect(200);
    for (let i = 0; i < 12; i++) await allocate(`web-${i}`, 'ui-web');
    for (let i = 0; i < 2; i++) await allocate(`pg-${i}`, 'ui-web', 'db');
    for (let i = 0; i < 40; i++) await allocate(`job-${i}`, 'ui-batch', 'batch', 'worker-2');
    for (let i = 0; i < 3; i++) await allocate(`api-${i}`, 'ui-v6');
    for (let i = 0; i < 22; i++) await allocate(`mysql-${i}`, 'ui-db', 'db');
    // the release is ui-web's last event: one step back on the time control is just before it
    await api.http().delete('/v1/allocations/web-7:eth0').set(admin()).expect(204);
    released = held['web-7'];
    browser = await launchChromium();
    browser.context.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refusedByCsp.push(`${message.page()?.url()}: ${message.text()}`);
    });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
  });

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('serves the page without a token, keeps /v1 behind it, and leaves /ui out of the OpenAPI document', async () => {
    const html = await api.http().get('/ui/').expect(200);
    expect(html.text).toContain('<div id="app">');
    expect((await api.http().get('/ui').expect(302)).headers.location).toBe('/ui/');
    await api.http().get('/v1/pools').expect(401);
    const doc = await api.http().get('/docs-json').expect(200);
    expect(Object.keys(doc.body.paths).filter((path) => path.startsWith('/ui'))).toEqual([]);
    expect(doc.body.components.schemas.PoolDto.properties).toHaveProperty('statefulSetRanges');
  });

  it('asks for a token, then shows utilisation equal to the API counts', async () => {
    await page.goto(`${base}/ui/#/pools`);
    await page.locator('.error[data-status="401"]').waitFor();
    await page.fill('input[name=token]', READER);
    await page.click('form.token button[type=submit]');
    await page.locator('table.pools[data-loaded="yes"] tr[data-pool="ui-web"]').waitFor();
    expect(await page.evaluate(STORED_TOKEN)).toBe(READER);

    // 2. every pool's four counts are the API's: allocated, reserved (less ranges), StatefulSet ranges, free
    const listed = (await api.http().get('/v1/pools').set(admin()).expect(200)).body.items;
    expect(listed).toHaveLength(5);
    for (const pool of listed) {
      const row = page.locator(`tr[data-pool="${pool.name}"]`);
      const shown = async (key: string) => row.locator(`[data-count="${key}"]`).getAttribute('data-value');
      expect(await shown('allocated')).toBe(pool.allocated);
      expect(await shown('reserved')).toBe(String(BigInt(pool.reservedCount) - BigInt(pool.rangeReservedCount)));
      expect(await shown('range')).toBe(pool.rangeReservedCount);
      expect(await shown('free')).toBe(pool.free);
    }
    // ui-web: 12 + 2 held, one released; 6 reserved; 5-address range of which pg-0 and pg-1 hold two
    const web = page.locator('tr[data-pool="ui-web"]');
    expect(await web.locator('[data-count]').evaluateAll((els) => els.map((el) => el.getAttribute('data-value')))).toEqual([
      '13',
      '6',
      '3',
      String(254 - 13 - 6 - 3),
    ]);
    await page.setViewportSize({ width: 1280, height: 480 });
    await page.screenshot({ path: join(ARTIFACTS, 'pools.png'), fullPage: true });
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  it('filters by a label selector on the server, shows its error, and sorts by utilisation', async () => {
    await page.fill('#selector', 'tier=web');
    await page.click('form.selector button[type=submit]');
    await rowCount(page, 2);
    expect(await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pool')))).toEqual(['ui-v6', 'ui-web']);

    await page.fill('#selector', 'tier in (web');
    await page.click('form.selector button[type=submit]');
    const error = page.locator('.error[data-status="400"]');
    await error.waitFor();
    const answer = await api.http().get('/v1/pools').query({ labelSelector: 'tier in (web' }).set(admin()).expect(400);
    expect(await error.textContent()).toContain(answer.body.message);

    await page.fill('#selector', '');
    await page.click('form.selector button[type=submit]');
    await rowCount(page, 5);
    await page.click('th.sortable button');
    await hashIncludes(page, 'sort=util-desc');
    // ui-edge (nothing used) and ui-v6 (3 of 2^64) tie at 0 and keep their name order
    expect(await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pool')))).toEqual([
      'ui-db',
      'ui-web',
      'ui-batch',
      'ui-edge',
      'ui-v6',
    ]);
  });

  it("names the holder's pod in the map cell of a held address", async () => {
    await page.goto(`${base}/ui/#/pools/ui-web`);
    await mapReady(page, 'live');
    // 3. hovering a held address shows pod, namespace, node and handle
    const cell = page.locator(`.cell[data-ip="${held['web-3']}"]`);
    expect(await cell.getAttribute('data-state')).toBe('allocated');
    await cell.hover();
    const tip = page.locator('.tooltip');
    await tip.waitFor();
    expect(await tip.locator('[data-holder="pod"]').textContent()).toBe('web-3');
    expect(await tip.textContent()).toContain('worker-1');
    expect(await tip.textContent()).toContain('web-3:eth0');
    expect(await page.locator('.cell[data-ip="10.30.0.1"]').getAttribute('data-state')).toBe('reserved');
    expect(await page.locator(`.cell[data-ip="${held['pg-0']}"]`).getAttribute('class')).toContain('in-range');
    expect(await page.locator('.cell[data-state="range"]').count()).toBe(3);
    await page.screenshot({ path: join(ARTIFACTS, 'pool-map.png'), fullPage: true });
  });

  it('shows the released address as held when the time control moves back, and its history on click', async () => {
    // 4. live, the released address is free; one event back (before the release), it is held by its pod
    const cell = () => page.locator(`.cell[data-ip="${released}"]`);
    expect(await cell().getAttribute('data-state')).toBe('free');
    await page.focus('input[name=time]');
    await page.keyboard.press('ArrowLeft');
    await hashIncludes(page, 'at=');
    const at = await page.locator('.time-control .when').getAttribute('data-at');
    expect(at).not.toBe('live');
    await mapReady(page, at!);
    expect(await cell().getAttribute('data-state')).toBe('allocated');
    await cell().hover();
    expect(await page.locator('.tooltip [data-holder="pod"]').textContent()).toBe('web-7');
    expect(await page.locator('.pool-util [data-count="allocated"]').getAttribute('data-value')).toBe('14');

    await cell().click();
    const history = page.locator(`.ip-history[data-ip="${released}"] .events li`);
    await history.nth(1).waitFor();
    expect(await history.locator('.type').allTextContents()).toEqual(['IpAllocated', 'IpReleased']);
    await page.click('.time-control button:text("Live")');
    await mapReady(page, 'live');
    expect(await cell().getAttribute('data-state')).toBe('free');
  });

  it('aggregates a /16 and an IPv6 /64 into blocks with counts', async () => {
    await page.goto(`${base}/ui/#/pools/ui-batch`);
    await mapReady(page, 'live');
    expect(await page.locator('.cell.block').count()).toBe(256);
    // 10.31.0.0/24 is reserved, so the first address handed out is in the next /24
    const block = held['job-0'].replace(/\.\d+$/, '.0/24');
    expect(block).toBe('10.31.1.0/24');
    await page.locator(`.cell.block[data-cidr="${block}"]`).hover();
    expect(await page.locator('.tooltip').textContent()).toContain('40 allocated');
    await page.locator(`.cell.block[data-cidr="${block}"]`).click();
    await hashIncludes(page, 'block=');
    await page.locator(`.cell[data-ip="${held['job-0']}"][data-state="allocated"]`).waitFor();
    await page.goto(`${base}/ui/#/pools/ui-v6`);
    await mapReady(page, 'live');
    await page.locator('.cell.block[data-cidr="fd00:30::/72"]').hover();
    expect(await page.locator('.tooltip').textContent()).toContain('3 allocated');
  });

  it("shows a node's labels, its eligible pools and why the others are left out", async () => {
    await page.goto(`${base}/ui/#/nodes/worker-1`);
    await page.locator('table.excluded tr[data-pool="ui-batch"]').waitFor();
    expect(await page.locator('table.eligible tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-pool')))).toEqual([
      'ui-db',
      'ui-v6',
      'ui-web',
    ]);
    const explained = (await api.http().get('/v1/nodes/worker-1/pools?explain=true').set(admin()).expect(200)).body.excluded;
    expect(explained.map((e: { pool: string }) => e.pool).sort()).toEqual(['ui-batch', 'ui-edge']);
    for (const { pool, reason } of explained) {
      expect(await page.locator(`table.excluded tr[data-pool="${pool}"] .reason`).textContent()).toBe(reason);
    }
    expect(await page.locator('.node-page .facts').textContent()).toContain('zone=a');
  });

  it('answers "why not this pool?" with every reason the API gives, the rule\'s included, under a matchLabel tried there', async () => {
    await page.goto(`${base}/ui/#/nodes/worker-1`);
    const ask = async (pool: string, matchLabel = '') => {
      await page.fill('.why-not-form input[name=pool]', pool);
      await page.fill('.why-not-form input[name=matchLabel]', matchLabel);
      await page.click('.why-not-form button[type=submit]');
    };
    const reason = async (query: string) =>
      (await api.http().get(`/v1/nodes/worker-1/pools?explain=true&${query}`).set(admin()).expect(200)).body.excluded[0].reason as string;

    await ask('ui-batch');
    const nodeSelector = await reason('pool=ui-batch');
    await page.locator('.why-not .answer[data-pool="ui-batch"][data-eligible="no"] .reason', { hasText: nodeSelector }).waitFor();
    // a rule tried in the page: the rule's own reason, which the left-out list never shows, comes first
    await ask('ui-batch', 'zone');
    const both = await reason('pool=ui-batch&matchLabel=zone');
    expect(both).toBe(
      'matchLabel=zone: the pool\'s zone is "b", the node\'s is "a"; nodeSelector "zone=b" does not match the node\'s labels',
    );
    await page.locator('.why-not .answer .reason', { hasText: 'matchLabel=zone' }).waitFor();
    expect(await page.locator('.why-not .answer .reason').textContent()).toBe(both);
    await ask('ui-web', 'zone');
    expect(await page.locator('.why-not .answer[data-pool="ui-web"][data-eligible="yes"]').textContent()).toContain('is eligible');
    await ask('no-such-pool');
    const missing = page.locator('.why-not .error[data-status="404"]');
    await missing.waitFor();
    expect(await missing.textContent()).toContain('POOL_NOT_FOUND');
  });

  it('shows the 404 of a node the API does not know, and no pool list', async () => {
    await page.goto(`${base}/ui/#/nodes/no-such-node`);
    // the page of this node, not the last one's (a hash change re-renders after goto returns)
    const error = page.locator('.node-page[data-node="no-such-node"] .error[data-status="404"]');
    await error.waitFor();
    expect(await error.textContent()).toContain('NODE_NOT_FOUND');
    // the pools answer (the server default's, for labels the node does not have) has come, and is not shown
    await api.http().get('/v1/nodes/no-such-node/pools').set(admin()).expect(200);
    expect(await page.locator('.node-page table.eligible, .node-page table.excluded, .why-not').count()).toBe(0);
    expect(await page.locator('.node-page').textContent()).not.toContain('Eligible pools');
  });

  it('shows a 401 for a wrong token', async () => {
    // 5. a fresh tab (no token in its session storage) given a wrong token
    const other = await browser.context.newPage();
    await other.goto(`${base}/ui/#/pools`);
    expect(await other.evaluate(STORED_TOKEN)).toBeNull();
    await other.fill('input[name=token]', 'not-a-token');
    const refused = other.waitForResponse(
      (r) => r.url().includes('/v1/pools') && r.request().headers().authorization === 'Bearer not-a-token',
    );
    await other.click('form.token button[type=submit]');
    expect((await refused).status()).toBe(401);
    const error = other.locator('.error[data-status="401"]');
    await error.waitFor();
    expect(await error.textContent()).toContain('401 Unauthorized');
    expect(await other.evaluate(STORED_TOKEN)).toBe('not-a-token');
    await other.close();
  });

  it('loads every page of a long list and draws the rows in sight as it scrolls', async () => {
    await seedPools(api.app, 500);
    await page.goto(`${base}/ui/#/pools?limit=all`);
    await page.locator('table.pools[data-loaded="yes"][data-count="505"]').waitFor();
    // only the rows in sight (and a margin) are in the document; the last one appears at the bottom
    expect(await page.locator('tbody tr[data-pool]').count()).toBeLessThan(100);
    await page.keyboard.press('End');
    await page.locator(`tr[data-pool="${poolName(499)}"]`).waitFor();
    expect(await page.locator('tr[data-pool="ui-web"]').count()).toBe(1);
  });

  it('pages by `continue`, forwards and back', async () => {
    await page.goto(`${base}/ui/#/pools?limit=100`);
    const firstRow = () => page.locator('table.pools[data-loaded="yes"] tbody tr[data-pool]').first().getAttribute('data-pool');
    await page.locator('table.pools[data-loaded="yes"][data-count="100"]').waitFor();
    expect(await firstRow()).toBe(poolName(0));
    for (const expected of [100, 200]) {
      await page.click('.pager button:text("Next")');
      await firstPool(page, poolName(expected));
    }
    await page.click('.pager button:text("Previous")');
    await firstPool(page, poolName(100));
    await page.click('.pager button:text("Previous")');
    await firstPool(page, poolName(0));
    expect(await page.locator('.pager button:text("Previous")').count()).toBe(0);
  });

  it('shows which node holds which block, live and at an earlier instant, as the API lists them', async () => {
    // made here, late: the tests above count the pools
    await api.http().post('/v1/pools').set(admin()).send({ name: 'ui-rack', cidr: '10.34.0.0/24', blockSize: 26 }).expect(201);
    for (const [pod, node] of [
      ['rack-a', 'worker-1'],
      ['rack-b', 'worker-1'],
      ['rack-c', 'worker-2'],
      ['rack-d', 'worker-3'],
    ])
      await allocate(pod, 'ui-rack', 'rack', node);
    // before: three blocks claimed, the fourth free; then two more nodes fill it and borrow from worker-1's
    const before = (await api.http().get('/v1/allocations/rack-d:eth0').set(admin()).expect(200)).body.items[0].allocatedAt as string;
    await allocate('rack-e', 'ui-rack', 'rack', 'worker-4');
    await allocate('rack-f', 'ui-rack', 'rack', 'worker-5');
    const blocksAt = async (at?: string) =>
      (
        await api
          .http()
          .get('/v1/pools/ui-rack/blocks')
          .query(at ? { at } : {})
          .set(admin())
          .expect(200)
      ).body.items as Array<{
        cidr: string;
        node: string;
        used: number;
        borrowed: number;
      }>;
    /** each address cell's node as the map shows it, against the node of the API's block holding the address */
    const expectMapToShow = async (blocks: Awaited<ReturnType<typeof blocksAt>>) => {
      const nodeOf = (ip: string) => {
        const last = Number(ip.split('.')[3]);
        return blocks.find((b) => b.cidr === `10.34.0.${last - (last % 64)}/26`)?.node ?? null;
      };
      const shown = await page
        .locator('.cell[data-ip]')
        .evaluateAll((els) => els.map((el) => [el.getAttribute('data-ip')!, el.getAttribute('data-node')]));
      expect(shown).toHaveLength(256);
      expect(shown).toEqual(shown.map(([ip]) => [ip, nodeOf(ip)]));
      const rows = await page
        .locator('.node-blocks tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [
            tr.getAttribute('data-block'),
            tr.getAttribute('data-node'),
            ...[...tr.querySelectorAll('[data-count]')].map((td) => Number(td.textContent)),
          ]),
        );
      expect(rows).toEqual(blocks.map((b) => [b.cidr, b.node, b.used, b.borrowed]));
    };

    const live = await blocksAt();
    expect(live.map((b) => b.node)).toEqual(['worker-1', 'worker-2', 'worker-3', 'worker-4']);
    expect(live[0]).toMatchObject({ used: 3, borrowed: 1 });
    await page.goto(`${base}/ui/#/pools/ui-rack`);
    await mapReady(page, 'live');
    await expectMapToShow(live);
    expect(await page.locator('[data-block-size="26"]').count()).toBe(1);
    await page.locator(`.cell[data-ip="${held['rack-f']}"]`).hover();
    const tip = page.locator('.tooltip');
    expect(await tip.locator('[data-node-block="10.34.0.0/26"]').textContent()).toContain('of node worker-1');
    expect(await tip.textContent()).toContain('borrowed by worker-5');
    await page.screenshot({ path: join(ARTIFACTS, 'pool-blocks.png'), fullPage: true });

    const at = justAfter(before);
    const then = await blocksAt(at);
    expect(then.map((b) => b.node)).toEqual(['worker-1', 'worker-2', 'worker-3']);
    await page.goto(`${base}/ui/#/pools/ui-rack?at=${at}`);
    await mapReady(page, at);
    await expectMapToShow(then);
  });

  it('runs Swagger UI at /docs under the same Content-Security-Policy', async () => {
    const docs = await browser.context.newPage();
    await docs.goto(`${base}/docs`);
    // the operations are drawn by Swagger UI's own script, from the document its init script carries
    await docs.locator('.opblock-summary-path', { hasText: '/v1/allocations' }).first().waitFor();
    expect(await docs.locator('.opblock').count()).toBeGreaterThan(20);
    await docs.locator('.opblock-summary-path', { hasText: '/v1/pools' }).first().click();
    await docs.locator('.opblock.is-open .opblock-body').first().waitFor();
    await docs.screenshot({ path: join(ARTIFACTS, 'docs.png') });
    await docs.close();
  });

  it('broke no rule of the Content-Security-Policy on any page it showed', () => {
    expect(refusedByCsp).toEqual([]);
  });
});
