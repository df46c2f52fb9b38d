import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { linkHash, readChainHead, sealChain, type ChainEvent } from '@ipledger/event-store';
import { Pool } from 'pg';
import request from 'supertest';
import { runCli } from '../src/cli';
import { eventually } from '../../../test/support/eventually';
import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { SyntheticLog } from '../../../test/support/synthetic-log';
import { listenApi, startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestDatabase, databaseUrl, dropDatabase, uniqueDatabaseName, type TestDatabase } from '../../../test/support/test-database';

interface Head {
  count: number;
  hash: string;
  at: string;
}
interface EventItem {
  position: number;
  streamId: string;
  version: number;
  type: string;
}

const SEAL = { IPAM_AUDIT_SEAL_INTERVAL_MS: '50' };

const cli = async (url: string, args: string[], stdio?: Parameters<typeof runCli>[3]) => {
  const lines: string[] = [];
  const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: url }, stdio);
  return { code, lines };
};

/** The microseconds since the epoch of an export's `recordedAt`. */
const micros = (instant: string) => String(BigInt(Date.parse(`${instant.slice(0, 19)}Z`)) * 1000n + BigInt(instant.slice(20, 26)));

/** An event line as the chain hashes it: data and metadata are the line's own jsonb text. */
const chainEventOf = (line: string): ChainEvent => {
  const e = JSON.parse(line) as Record<string, string & number>;
  const [, data, metadata] = /"data":(.*),"metadata":(.*),"recordedAt":/.exec(line)!;
  return { ...e, position: String(e.position), data, metadata, recordedAtMicros: micros(e.recordedAt) } as ChainEvent;
};

/** Every page of GET /v1/events: the items, and the cursor after the last one. */
async function wholeFeed(http: () => ReturnType<typeof request>, after?: string): Promise<{ items: EventItem[]; next: string | null }> {
  const items: EventItem[] = [];
  let next = after ?? null;
  for (;;) {
    const page = (
      await http()
        .get('/v1/events')
        .query({ limit: 100, ...(next ? { after: next } : {}) })
        .expect(200)
    ).body as {
      items: EventItem[];
      next: string | null;
    };
    items.push(...page.items);
    if (page.items.length === 0) return { items, next };
    next = page.next;
  }
}

/** What the ledger answers, read over HTTP: every read model, the history, the feed and the head. */
async function answers(http: () => ReturnType<typeof request>) {
  const get = async (path: string) => (await http().get(path).expect(200)).body as unknown;
  const pools = (await get('/v1/pools?limit=1000')) as { items: Array<{ name: string }> };
  const perPool: Record<string, unknown> = {};
  for (const { name } of pools.items) {
    perPool[name] = {
      pool: await get(`/v1/pools/${name}`),
      history: await get(`/v1/pools/${name}/history?limit=1000`),
    };
  }
  const allocations = (await get('/v1/allocations?limit=1000')) as { items: Array<{ ip: string }> };
  const addressHistories: Record<string, unknown> = {};
  for (const ip of ['10.6.0.1', '10.6.0.2', '10.6.0.3', '10.7.0.1', '10.7.0.20', '10.9.0.16'])
    addressHistories[ip] = await get(`/v1/ips/${ip}/history`);
  return {
    pools,
    perPool,
    allocations,
    allocationsInQ: await get('/v1/allocations?pool=q&limit=1000'),
    nodes: { x: await get('/v1/nodes/x'), late: await get('/v1/nodes/late'), eligible: await get('/v1/nodes/x/pools?explain=true') },
    nodeGone: (await http().get('/v1/nodes/gone')).status,
    statefulSet: await get('/v1/statefulsets/ns/db'),
    ipSets: await get('/v1/ipsets?limit=1000'),
    addressHistories,
    feed: (await wholeFeed(http)).items,
    head: await get('/v1/audit/head'),
  };
}

/**
 * The log is the backup (issue 33): `ipledger export` writes the log with its chain links as JSON
 * lines; `ipledger import` loads them into an empty database, recomputing every link and checking
 * the head, and rebuilds the read models, so that the copy answers as the original.
 */
describe('ipledger export and import', () => {
  let dir: string;
  let source: TestApi;
  let head: Head;
  let exported: string;
  let lines: string[];
  const targets: string[] = [];
  /** a database ipledger import makes (it does not exist before), dropped at the end */
  const newDatabase = (what: string) => {
    const name = uniqueDatabaseName(`import_${what}`);
    targets.push(name);
    return databaseUrl(name);
  };
  const refusedUrl = () => refused;
  let refused: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ipledger-export-'));
    source = await startTestApi('export_source', { env: SEAL });
    const http = () => source.http();
    await http()
      .post('/v1/pools')
      .send({ name: 'p', cidr: '10.6.0.0/28', labels: { 'pool-group': 'g1' }, reserved: ['10.6.0.14'] })
      .expect(201);
    await http()
      .post('/v1/pools')
      .send({ name: 'q', cidr: '10.7.0.0/24', labels: { 'pool-group': 'g1' } })
      .expect(201);
    await http().post('/v1/pools').send({ name: 'sets', cidr: '10.9.0.0/27' }).expect(201);
    await http()
      .put('/v1/nodes/x')
      .send({ labels: { 'pool-group': 'g0' } })
      .expect(200);
    await http()
      .put('/v1/nodes/x')
      .send({ labels: { 'pool-group': 'g1' } })
      .expect(200);
    await http().put('/v1/nodes/gone').send({ labels: {} }).expect(200);
    await http().delete('/v1/nodes/gone').expect(204);
    for (const h of ['a', 'b', 'c']) {
      await http()
        .post('/v1/allocations')
        .send({ handle: h, node: 'x', namespace: 'ns', pod: h, pools: ['p'] })
        .expect(201);
    }
    await http().delete('/v1/allocations/b').expect(204);
    await http().put('/v1/statefulsets/ns/db').send({ replicas: 3, pool: 'q' }).expect(200);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        http()
          .post('/v1/allocations')
          .send({ handle: `k${i}`, node: 'x', namespace: 'ns', pod: `k${i}`, pools: ['q'] })
          .expect(201),
      ),
    );
    // enough events in pool q for a snapshot (every 200 events at least): the import takes one too
    for (let round = 0; round < 10; round++) {
      const handles = Array.from({ length: 10 }, (_, j) => `s${round}-${j}`);
      await Promise.all(
        handles.map((h) =>
          http()
            .post('/v1/allocations')
            .send({ handle: h, node: 'x', namespace: 'ns', pod: h, pools: ['q'] })
            .expect(201),
        ),
      );
      await Promise.all(handles.map((h) => http().delete(`/v1/allocations/${h}`).expect(204)));
    }
    // A transaction that took its id before an allocation and appends after it: in the feed its
    // event comes first, at the higher position. The import must keep that order.
    const late = await source.db.pool.connect();
    try {
      await late.query('BEGIN');
      await late.query('SELECT pg_current_xact_id()');
      await http()
        .post('/v1/allocations')
        .send({ handle: 'd', node: 'x', namespace: 'ns', pod: 'd', pools: ['p'] })
        .expect(201);
      await late.query(
        `INSERT INTO events (stream_id, version, event_id, type, data) VALUES ('node-late', 1, gen_random_uuid(), 'NodeLabelsSet', '{"name": "late", "labels": {"rack": "r9"}}')`,
      );
      await late.query('COMMIT');
    } finally {
      late.release();
    }
    // an ip-set of a Deployment, as the consumer appends it (its range in the pool, the set in its own stream)
    await source.db.pool.query(
      `INSERT INTO events (stream_id, version, event_id, type, data) VALUES
         ('pool-sets', 2, gen_random_uuid(), 'RangeReserved', '{"pool": "sets", "namespace": "shop", "name": "Deployment:web", "start": "10.9.0.16", "end": "10.9.0.23"}'),
         ('ipset-shop/Deployment/web', 1, gen_random_uuid(), 'IpSetReserved', '{"namespace": "shop", "kind": "Deployment", "name": "web", "pool": "sets", "start": "10.9.0.16", "end": "10.9.0.23"}')`,
    );
    // the two events written beside the API: the read models follow them
    expect((await cli(source.db.url, ['replay', '--rebuild'])).code).toBe(0);
    const events = await source.eventCount();
    head = await eventually(
      async () => (await http().get('/v1/audit/head').expect(200)).body as Head,
      (h) => h.count === events,
      45_000,
    );
    exported = join(dir, 'ledger.jsonl');
    const run = await cli(source.db.url, ['export', '--output', exported]);
    expect(run).toEqual({
      code: 0,
      lines: [expect.stringMatching(new RegExp(`^exported ${events} events, [\\d.]+ MB, to ${exported} in `))],
    });
    lines = readFileSync(exported, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    refused = newDatabase('refused');
  }, 60_000);

  afterAll(async () => {
    await source?.close();
    for (const name of targets) await dropDatabase(name);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the export with its lines changed by `edit`, written to a file of its own. */
  const variant = (name: string, edit: (lines: string[]) => string[]) => {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, `${edit([...lines]).join('\n')}\n`);
    return file;
  };
  /** the line number (the header is line 1) of the first event line of `type` */
  const lineOf = (type: string, from = 2) => lines.findIndex((l, i) => i + 1 >= from && JSON.parse(l).type === type) + 1;

  const expectNothingImported = async (url: string) => {
    const db = new Pool({ connectionString: url, max: 1 });
    try {
      const { rows } = await db.query(
        `SELECT (SELECT count(*) FROM events)::int AS events, (SELECT count(*) FROM event_links)::int AS links,
                (SELECT count(*) FROM stream_snapshots)::int AS snapshots, (SELECT count(*) FROM pools)::int AS pools,
                (SELECT count(*) FROM allocations)::int AS allocations`,
      );
      expect(rows[0]).toEqual({ events: 0, links: 0, snapshots: 0, pools: 0, allocations: 0 });
    } finally {
      await db.end();
    }
  };

  it('writes a header, then every event of the feed with its link, in the feed order', async () => {
    const header = JSON.parse(lines[0]);
    expect(header).toEqual({
      format: 'ipledger-log',
      version: 1,
      schema: expect.stringMatching(/^\d{3}_.+\.sql$/),
      exportedAt: expect.any(String),
      events: head.count,
      head: { count: head.count, hash: head.hash, at: head.at },
      from: null,
      first: { seq: 1, previous: '0'.repeat(64) },
    });
    const events = lines.slice(1).map((l) => JSON.parse(l));
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: head.count }, (_, i) => i + 1));
    const { rows } = await source.db.pool.query<{ position: string; link: string }>(
      `SELECT e.position, encode(l.hash, 'hex') AS link FROM events e JOIN event_links l USING (position) ORDER BY e.transaction_id, e.position`,
    );
    expect(events.map((e) => [String(e.position), e.link])).toEqual(rows.map((r) => [r.position, r.link]));
    // the late transaction's event comes before the allocation it committed after, at a higher position
    const positions = events.map((e) => e.position as number);
    expect(positions.some((p, i) => i > 0 && p < positions[i - 1])).toBe(true);
    expect(Object.keys(events[0])).toEqual([
      'seq',
      'position',
      'transactionId',
      'streamId',
      'version',
      'eventId',
      'type',
      'schemaVersion',
      'data',
      'metadata',
      'recordedAt',
      'legacyHash',
      'link',
      'sealedAt',
    ]);
  });

  describe('imported into a new database', () => {
    let url: string;
    let app: INestApplication;
    const http = () => request(app.getHttpServer());

    beforeAll(async () => {
      url = newDatabase('copy');
      const run = await cli(url, ['import', exported, '--head', `${head.count}:${head.hash}`]);
      expect(run.lines.slice(-2)).toEqual([
        expect.stringMatching(
          new RegExp(`^imported ${head.count} events in [\\d.]+ s, \\d+ events/s \\(load and verify .*1 snapshot\\(s\\)`),
        ),
        `every link verified and the --head ${head.count}:${head.hash}; the chain is sealed to ${head.count}:${head.hash}`,
      ]);
      expect(run.code).toBe(0);
      app = await listenApi(url, SEAL);
      // the feed shows the import's commit once every transaction older than it has ended, anywhere on the (shared) server
      await eventually(
        () => wholeFeed(http),
        (feed) => feed.items.length === head.count,
        60_000,
      );
    }, 120_000);
    afterAll(() => app?.close());

    it('answers as the exported ledger: pools, allocations, nodes, StatefulSets, ip-sets, histories, the feed and the audit head', async () => {
      const original = await answers(() => source.http());
      expect((original.ipSets as { items: unknown[] }).items).toHaveLength(1);
      expect((original.allocations as { items: unknown[] }).items.length).toBeGreaterThan(10);
      expect(await answers(http)).toEqual(original);
    });

    it('passes replay --verify (read models and the snapshot taken) and verify-chain with the head', async () => {
      const db = new Pool({ connectionString: url, max: 1 });
      const { rows } = await db.query("SELECT stream_id, version FROM stream_snapshots WHERE stream_id = 'pool-q'");
      await db.end();
      expect(rows).toHaveLength(1);
      await expectReplayVerifyClean(url);
      expect(await cli(url, ['verify-chain', '--head', `${head.count}:${head.hash}`])).toEqual({
        code: 0,
        lines: [`the first ${head.count} events chain to the head ${head.count}:${head.hash}; ${head.count} links intact`],
      });
    });

    it('appends after the import: a new allocation is chained and comes after every imported event in the feed', async () => {
      const before = await wholeFeed(http);
      const res = await http()
        .post('/v1/allocations')
        .send({ handle: 'after', node: 'x', namespace: 'ns', pod: 'after', pools: ['p'] });
      expect(res.status).toBe(201);
      // the feed's cursor taken at the imported end finds exactly the new event
      const after = await eventually(
        () => wholeFeed(http, before.next!),
        (page) => page.items.length > 0,
        45_000,
      );
      expect(after.items.map((e) => [e.streamId, e.type])).toEqual([['pool-p', 'IpAllocated']]);
      expect(after.items[0].position).toBeGreaterThan(Math.max(...before.items.map((e) => e.position)));
      const sealed = await eventually(
        async () => (await http().get('/v1/audit/head').expect(200)).body as Head,
        (h) => h.count === head.count + 1,
        45_000,
      );
      expect(await cli(url, ['verify-chain', '--head', `${head.count}:${head.hash}`])).toMatchObject({ code: 0 });
      expect(await cli(url, ['verify-chain', '--head', `${sealed.count}:${sealed.hash}`])).toMatchObject({ code: 0 });
    }, 120_000);
  });

  it('gives the events ids of the importing cluster: from a source whose transaction ids are far ahead, later appends still follow them', async () => {
    // as if exported from a cluster 5 epochs ahead: the file's transaction ids are not chained, and not kept
    const ahead = variant('ahead', (all) =>
      all.map((line, i) =>
        i === 0 ? line : line.replace(/"transactionId":"(\d+)"/, (_, xid: string) => `"transactionId":"${BigInt(xid) + 5n * 2n ** 32n}"`),
      ),
    );
    const url = newDatabase('ahead');
    expect((await cli(url, ['import', ahead])).code).toBe(0);
    const app = await listenApi(url, SEAL);
    try {
      const http = () => request(app.getHttpServer());
      await http()
        .post('/v1/allocations')
        .send({ handle: 'next', node: 'x', namespace: 'ns', pod: 'next', pools: ['q'] })
        .expect(201);
      const feed = await eventually(
        () => wholeFeed(http),
        (f) => f.items.length === head.count + 1,
        60_000,
      );
      const imported = lines.slice(1).map((l) => JSON.parse(l).position as number);
      expect(feed.items.map((e) => e.position)).toEqual([...imported, expect.any(Number)]);
      expect(feed.items.at(-1)).toMatchObject({ streamId: 'pool-q', type: 'IpAllocated' });
    } finally {
      await app.close();
    }
  }, 120_000);

  describe('refuses a file that was tampered with, naming the first bad line, and imports nothing', () => {
    it('a line edited', async () => {
      const at = lineOf('IpAllocated');
      const event = JSON.parse(lines[at - 1]);
      const edited = variant('edited', (all) => {
        all[at - 1] = all[at - 1].replace(`"pod": "${event.data.pod}"`, '"pod": "someone-else"');
        return all;
      });
      expect(readFileSync(edited, 'utf8')).not.toBe(readFileSync(exported, 'utf8'));
      const run = await cli(refusedUrl(), ['import', edited]);
      expect(run.lines.slice(-2)).toEqual([
        expect.stringMatching(
          new RegExp(`^REFUSED line ${at} \\(position ${event.position}, pool-p version ${event.version}\\): the chain breaks here: `),
        ),
        'nothing was imported: the database is as it was',
      ]);
      expect(run.code).toBe(1);
      await expectNothingImported(refusedUrl());
    });

    it('a line removed', async () => {
      const at = lineOf('IpReleased');
      const next = JSON.parse(lines[at]);
      const run = await cli(refusedUrl(), ['import', variant('removed', (all) => all.filter((_, i) => i !== at - 1))]);
      expect(run.lines.at(-2)).toBe(
        `REFUSED line ${at} (position ${next.position}, ${next.streamId} version ${next.version}): it holds link ${at} where link ${at - 1} belongs: a line was removed before it, or moved`,
      );
      expect(run.code).toBe(1);
      await expectNothingImported(refusedUrl());
    });

    it('two lines swapped, and a line repeated', async () => {
      const at = lineOf('IpReleased');
      const swapped = await cli(refusedUrl(), [
        'import',
        variant('swapped', (all) => {
          [all[at - 1], all[at]] = [all[at], all[at - 1]];
          return all;
        }),
      ]);
      expect(swapped.lines.at(-2)).toMatch(
        new RegExp(
          `^REFUSED line ${at} \\(position ${JSON.parse(lines[at]).position}, .*: it holds link ${at} where link ${at - 1} belongs`,
        ),
      );
      const repeated = await cli(refusedUrl(), [
        'import',
        variant('repeated', (all) => [...all.slice(0, at), all[at - 1], ...all.slice(at)]),
      ]);
      expect(repeated.lines.at(-2)).toMatch(
        new RegExp(
          `^REFUSED line ${at + 1} \\(.*\\): it holds link ${at - 1} where link ${at} belongs: a line was inserted, repeated or moved$`,
        ),
      );
      expect([swapped.code, repeated.code]).toEqual([1, 1]);
      await expectNothingImported(refusedUrl());
    });

    it('a wrong --head, or one past the end of the file', async () => {
      const wrong = await cli(refusedUrl(), ['import', exported, '--head', `${head.count - 5}:${'ab'.repeat(32)}`]);
      expect(wrong.lines.at(-2)).toMatch(
        new RegExp(
          `^REFUSED line ${head.count - 4} \\(position \\d+, .*\\): the file chains to [0-9a-f]{64} at link ${head.count - 5}, not to the --head's ${'ab'.repeat(32)}`,
        ),
      );
      const past = await cli(refusedUrl(), ['import', exported, '--head', `${head.count + 1}:${head.hash}`]);
      expect(past.lines.at(-2)).toBe(
        `REFUSED the file holds ${head.count} events, fewer than the --head's ${head.count + 1}: events were removed`,
      );
      expect([wrong.code, past.code]).toEqual([1, 1]);
      await expectNothingImported(refusedUrl());
    });

    it('an event changed with every link after it recomputed: only the head kept outside catches it', async () => {
      const at = lineOf('IpAllocated');
      const forged = [...lines];
      const event = JSON.parse(forged[at - 1]);
      forged[at - 1] = forged[at - 1].replace(`"pod": "${event.data.pod}"`, '"pod": "forged"');
      let previous = JSON.parse(forged[at - 2]).link as string;
      for (let i = at - 1; i < forged.length; i++) {
        const link = linkHash(previous, chainEventOf(forged[i]));
        forged[i] = forged[i].replace(/"link":"[0-9a-f]{64}"/, `"link":"${link}"`);
        previous = link;
      }
      forged[0] = forged[0].replace(head.hash, previous);
      const file = variant('forged', () => forged);
      const run = await cli(refusedUrl(), ['import', file, '--head', `${head.count}:${head.hash}`]);
      expect(run.lines.at(-2)).toMatch(
        new RegExp(
          `^REFUSED line ${head.count + 1} \\(.*\\): the file chains to ${previous} at link ${head.count}, not to the --head's ${head.hash}: `,
        ),
      );
      expect(run.code).toBe(1);
      await expectNothingImported(refusedUrl());
    });

    it('a file cut short, and lines that are not an export', async () => {
      const cut = await cli(refusedUrl(), ['import', variant('cut', (all) => all.slice(0, 11))]);
      expect(cut.lines.at(-2)).toBe(
        `REFUSED the file ends after 10 of the ${head.count} events its header announces: lines were removed from its end, or it was cut short`,
      );
      const broken = await cli(refusedUrl(), ['import', variant('broken', (all) => [...all.slice(0, 5), '{"seq":5', ...all.slice(6)])]);
      expect(broken.lines.at(-2)).toMatch(/^REFUSED line 6: not JSON \(/);
      const header = await cli(refusedUrl(), ['import', variant('header', (all) => all.slice(1))]);
      expect(header.lines.at(-2)).toBe('REFUSED line 1: "format" is missing: not an ipledger-log header');
      expect([cut.code, broken.code, header.code]).toEqual([1, 1, 1]);
      await expectNothingImported(refusedUrl());
    });
  });

  it('refuses a database that is not empty, and changes nothing there', async () => {
    const events = await source.eventCount();
    const run = await cli(source.db.url, ['import', exported]);
    expect(run).toEqual({
      code: 1,
      lines: [
        expect.stringMatching(
          new RegExp(
            `^REFUSED the database is not empty \\(${events} events, ${head.count} links, \\d+ snapshots\\): import only into a new database$`,
          ),
        ),
        'nothing was imported: the database is as it was',
      ],
    });
    expect(await source.eventCount()).toBe(events);
  });

  it('exports from a position: the same lines from that event on, with the link before it; import takes only a whole log', async () => {
    const at = lineOf('IpReleased', 40);
    const first = JSON.parse(lines[at - 1]);
    const file = join(dir, 'from.jsonl');
    const run = await cli(source.db.url, ['export', '--from', String(first.position), '--output', file]);
    expect(run.lines).toEqual([
      expect.stringMatching(new RegExp(`^exported ${head.count - first.seq + 1} events from position ${first.position}, `)),
    ]);
    const [header, ...rest] = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(JSON.parse(header)).toMatchObject({
      events: head.count - first.seq + 1,
      from: first.position,
      first: { seq: first.seq, previous: JSON.parse(lines[at - 2]).link },
    });
    expect(rest).toEqual(lines.slice(at - 1));
    const refusal = await cli(refusedUrl(), ['import', file]);
    expect(refusal.lines.at(-2)).toBe(
      `REFUSED line 1: the file starts at link ${first.seq} (exported --from ${first.position}): only a whole log can be imported`,
    );
    expect(await cli(source.db.url, ['export', '--from', '999999', '--output', file])).toEqual({
      code: 2,
      lines: ['no committed event at position 999999: --from takes the position of an event (GET /v1/events)'],
    });
  });
});

describe('ipledger export and import of a log the sealer has not caught up with', () => {
  const EVENTS = 12_000;
  const SEALED = 10_500;
  let source: TestDatabase;
  const target = uniqueDatabaseName('import_unsealed');

  beforeAll(async () => {
    source = await createTestDatabase('export_unsealed');
    await new SyntheticLog(20).write(source.pool, EVENTS, 4000);
    expect((await sealChain(source.pool, { limit: SEALED })).sealed).toBe(SEALED);
  }, 60_000);
  afterAll(async () => {
    await source?.drop();
    await dropDatabase(target);
  });

  it('streams to a slow stdout a page at a time, and imports from stdin to the head the sealer then reaches', async () => {
    let buffered = 0;
    let text = '';
    let writes = 0;
    const stdout = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _, done) {
        buffered = Math.max(buffered, this.writableLength);
        text += chunk.toString();
        // the first page is taken slowly: meanwhile the export must wait, not read on into memory
        setTimeout(done, writes++ === 1 ? 2000 : 0);
      },
    });
    const stderr = new PassThrough();
    const run = await cli(source.url, ['export'], { stdin: process.stdin, stdout, stderr });
    expect(run).toEqual({ code: 0, lines: [] });
    expect(String(stderr.read())).toMatch(new RegExp(`^exported ${EVENTS} events, [\\d.]+ MB, to stdout in `));
    // back-pressure: never more than the page being written waits in the stream (5,000 of the 12,000
    // lines), and the command ends when the last one is written out
    const pages = text.trimEnd().split('\n');
    expect(pages).toHaveLength(EVENTS + 1);
    expect(buffered).toBeLessThan(text.length / 2);

    const header = JSON.parse(pages[0]);
    expect(header.head.count).toBe(SEALED);
    expect(pages.slice(1).map((l) => JSON.parse(l).sealedAt === null)).toEqual(Array.from({ length: EVENTS }, (_, i) => i >= SEALED));

    const imported = await cli(databaseUrl(target), ['import', '-'], { stdin: Readable.from([text]), stdout, stderr });
    expect(imported.code).toBe(0);
    // the links the exporter computed are the ones the source's sealer stores
    expect((await sealChain(source.pool, { limit: EVENTS })).sealed).toBe(EVENTS - SEALED);
    const copy = new Pool({ connectionString: databaseUrl(target), max: 1 });
    const client = await copy.connect();
    const sourceClient = await source.pool.connect();
    try {
      const [theirs, ours] = [await readChainHead(sourceClient), await readChainHead(client)];
      expect({ count: ours?.count, hash: ours?.hash }).toEqual({ count: EVENTS, hash: theirs?.hash });
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM stream_snapshots');
      expect(rows[0].n).toBeGreaterThan(0);
    } finally {
      client.release();
      sourceClient.release();
      await copy.end();
    }
    await expectReplayVerifyClean(databaseUrl(target));
  }, 120_000);
});
