import { join } from 'node:path';
import { Pool } from 'pg';
import { runMigrations } from '@ipledger/event-store';
import { runCli } from '../../apps/api/src/cli';
import { call, startApiProcess, type ApiProcess } from '../support/api-process';
import { eventually } from '../support/eventually';
import { expectReplayVerifyClean } from '../support/replay-verify';
import { databaseUrl, dropDatabase, MIGRATIONS_DIR, uniqueDatabaseName } from '../support/test-database';
import { checkOutPreviousRelease, drive, previousRelease, READS, WORKLOAD } from './previous-release';

/** The paths of `now` that `old` lacks (array items as `[]`), each once, sorted. */
function additions(old: unknown, now: unknown, path = ''): string[] {
  const found = new Set<string>();
  const walk = (a: unknown, b: unknown, at: string) => {
    if (Array.isArray(a) && Array.isArray(b)) a.forEach((item, i) => walk(item, b[i], `${at}[]`));
    else if (a && b && typeof a === 'object' && typeof b === 'object') {
      for (const key of Object.keys(b)) {
        if (key in a) walk((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}.${key}`);
        else found.add(`${at}.${key}`);
      }
    }
  };
  walk(old, now, path);
  return [...found].sort();
}

/** The fields this release adds to what the previous one answered, by route (unprefixed and under /v1/clusters/default alike): nothing else may differ. */
const POOL_ADDED = ['allowSpecialRanges', 'clusterSelector', 'network', 'reuseDelaySeconds', 'statefulSetRanges[].cluster'];
const ADDED: Array<[RegExp, string[]]> = [
  [/^\/v1\/pools\/[^/?]+$/, POOL_ADDED.map((field) => `.${field}`)],
  [/^\/v1\/pools(\?.*)?$/, POOL_ADDED.map((field) => `.items[].${field}`)],
  [/^\/v1\/nodes\/[^/]+\/pools\?explain=true$/, ['.chosenBy', ...POOL_ADDED.map((field) => `.items[].${field}`)]],
  [/^\/v1\/nodes\/[^/]+\/pools$/, POOL_ADDED.map((field) => `.items[].${field}`)],
  [/^\/v1\/nodes\/[^/]+$/, ['.cluster']],
  [/^\/v1\/allocations/, ['.items[].cluster']],
  [/^\/v1\/ips\//, ['.items[].cluster', '.items[].ipSet', '.items[].network']],
  [/^\/v1\/statefulsets/, ['.cluster']],
  [/^\/v1\/(events|pools\/[^/]+\/history)/, []],
];

function addedFor(path: string): string[] {
  const rule = ADDED.find(([pattern]) => pattern.test(path));
  if (!rule) throw new Error(`no rule says what this release adds to ${path}`);
  return [...rule[1]].sort();
}

/** A list's cursor (`continue`), apart from the rest of its answer. */
function withoutCursor(path: string, body: any): { cursor: string | null; rest: object } {
  if (!body || typeof body !== 'object') return { cursor: null, rest: body };
  const { continue: cursor = null, ...rest } = body;
  // the previous release's pool history answered `next` (a version) where this one pages with
  // `continue` like every list (issue 32); WORKLOAD leaves each history one page long
  if (/^\/v1\/pools\/[^/]+\/history/.test(path) && 'next' in rest) {
    const { next, ...others } = rest;
    return { cursor: next, rest: others };
  }
  return { cursor, rest };
}

const pageAfter = (path: string, cursor: string) => `${path}${path.includes('?') ? '&' : '?'}continue=${encodeURIComponent(cursor)}`;

/** Every column of every event, in log order: what "no event rewritten" compares. */
async function logRows(url: string): Promise<unknown[]> {
  const db = new Pool({ connectionString: url, max: 1 });
  try {
    const { rows } = await db.query('SELECT * FROM events ORDER BY position');
    return rows;
  } finally {
    await db.end();
  }
}

async function cli(url: string, ...args: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: url });
  return { code, lines };
}

/**
 * Issue 35, the upgrade to clusters: a single-cluster database made by the previous release,
 * migrated, answers every read the same under this release, as the default cluster (unprefixed and
 * under /v1/clusters/default), with no event rewritten; replay and the audit chain are clean, and
 * new writes in the default cluster and in another one extend it.
 */
describe('upgrading a previous release database to clusters', () => {
  const name = uniqueDatabaseName('upgrade-answers');
  const url = databaseUrl(name);
  const ref = previousRelease();
  const tree = checkOutPreviousRelease(ref);
  const before = new Map<string, { status: number; body: unknown }>();
  /** the page after a recorded one's cursor, where it had one */
  const followed = new Map<string, { status: number; body: unknown }>();
  let logBefore: unknown[];
  let api: ApiProcess;
  const summary = { routes: 0, events: 0, links: 0 };
  /** The audit head once the API's sealer has linked the first `count` events (or more). */
  const sealedHead = (count: number) =>
    eventually(
      async () => (await call(api.base, 'GET', '/v1/audit/head')).body as { count: number; hash: string },
      (head) => head.count >= count,
      20_000,
      `the audit head to cover ${count} events`,
    );

  beforeAll(async () => {
    await runMigrations(url, join(tree.root, 'migrations'));
    const old = await startApiProcess(url, { from: 'source', root: tree.root });
    try {
      expect(await drive(old.base, WORKLOAD)).toEqual([]);
      for (const path of READS) {
        const answer = await call(old.base, 'GET', path);
        before.set(path, answer);
        const { cursor } = withoutCursor(path, answer.body);
        if (cursor !== null) followed.set(path, await call(old.base, 'GET', pageAfter(path, cursor)));
      }
    } finally {
      await old.stop();
    }
    logBefore = await logRows(url);
    await runMigrations(url, MIGRATIONS_DIR);
    api = await startApiProcess(url, { from: 'source' });
  }, 180_000);

  afterAll(async () => {
    // the numbers the upgrade notes quote
    console.log(
      `upgrade: ${summary.routes} routes compared, ${summary.events} events kept as they were, ${summary.links} chain links verified`,
    );
    await api?.stop();
    await dropDatabase(name);
    tree.remove();
  });

  it('answers every read of the previous release the same, as the default cluster', async () => {
    let compared = 0;
    for (const [path, old] of before) {
      expect([path, old.status]).toEqual([path, 200]);
      // a read of nothing would compare nothing
      expect([
        path,
        Array.isArray((old.body as { items?: unknown }).items) ? (old.body as { items: unknown[] }).items.length > 0 : true,
      ]).toEqual([path, true]);
      const routes = /^\/v1\/(nodes|allocations)\b/.test(path) ? [path, path.replace('/v1/', '/v1/clusters/default/')] : [path];
      for (const route of routes) {
        const now = await call(api.base, 'GET', route);
        expect([route, now.status]).toEqual([route, 200]);
        const [o, n] = [withoutCursor(path, old.body), withoutCursor(route, now.body)];
        expect(n.rest).toMatchObject(o.rest);
        // only fields listed as added: a pool without StatefulSet ranges shows none of theirs
        expect([route, additions(o.rest, n.rest).filter((field) => !addedFor(path).includes(field))]).toEqual([route, []]);
        compared++;
        // a cursor is opaque (this release's keys carry the cluster): the same page must follow it
        expect([route, n.cursor === null]).toEqual([route, o.cursor === null]);
        if (n.cursor !== null) {
          expect([path, followed.get(path)!.status]).toEqual([path, 200]);
          const [o2, n2] = [
            withoutCursor(path, followed.get(path)!.body),
            withoutCursor(route, (await call(api.base, 'GET', pageAfter(route, n.cursor))).body),
          ];
          expect(n2.rest).toMatchObject(o2.rest);
          expect([route, additions(o2.rest, n2.rest)]).toEqual([route, addedFor(path)]);
        }
      }
    }
    summary.routes = compared;
  });

  it('rewrote no event and added none: every column of every event as the previous release left it', async () => {
    // stream ids included: the default cluster's keep theirs (node-<name>, pool-<name>...)
    expect(await logRows(url)).toEqual(logBefore);
    summary.events = logBefore.length;
  });

  it('replays and verifies the chain clean, sealed over the old events', async () => {
    await expectReplayVerifyClean(url);
    const head = await sealedHead(logBefore.length);
    expect(await cli(url, 'verify-chain', '--head', `${head.count}:${head.hash}`)).toEqual({
      code: 0,
      lines: [`the first ${head.count} events chain to the head ${head.count}:${head.hash}; ${head.count} links intact`],
    });
  });

  it('takes new writes in the default cluster and in another one, and the chain stays intact', async () => {
    const body = { node: 'worker-1', namespace: 'default', pod: 'web-9', pools: ['old'] };
    const plain = await call(api.base, 'POST', '/v1/allocations', { handle: 'after', ...body });
    expect(plain.status).toBe(201);
    expect(plain.body.items[0]).toMatchObject({ handle: 'after', cluster: 'default', pool: 'old' });
    // the same handle as the default cluster's h1, in a cluster the write creates
    const east = await call(api.base, 'POST', '/v1/clusters/east/allocations', { handle: 'h1', ...body });
    expect(east.status).toBe(201);
    expect(east.body.items[0]).toMatchObject({ handle: 'h1', cluster: 'east', pool: 'old' });
    expect((await call(api.base, 'GET', '/v1/allocations/h1')).body).toEqual({
      items: (before.get('/v1/allocations/h1')!.body as { items: object[] }).items.map((item) => ({ ...item, cluster: 'default' })),
    });

    const log = (await logRows(url)) as Array<{ type: string; data: { handle?: string; cluster?: string } }>;
    expect(log.slice(0, logBefore.length)).toEqual(logBefore);
    const allocated = log.slice(logBefore.length).filter((event) => event.type === 'IpAllocated');
    // the default cluster's events are written as before clusters (no `cluster`); another's carry it
    expect(allocated.map((event) => [event.data.handle, event.data.cluster])).toEqual([
      ['after', undefined],
      ['h1', 'east'],
    ]);
    await expectReplayVerifyClean(url);
    const head = await sealedHead(log.length);
    expect(await cli(url, 'verify-chain', '--head', `${head.count}:${head.hash}`)).toMatchObject({ code: 0 });
    summary.links = head.count;
  });
});
