import type { INestApplication } from '@nestjs/common';
import { Client } from 'pg';
import request from 'supertest';
import { runCli } from '../src/cli';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';
import { AppLogger } from '../src/infrastructure/app-logger';
import { eventually } from '../../../test/support/eventually';
import { listenApi } from '../../../test/support/test-api';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

interface Head {
  count: number;
  hash: string;
  at: string;
}

interface Link {
  seq: number;
  hash: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const verifyChain = async (url: string, head: Head) => {
  const lines: string[] = [];
  const code = await runCli(['verify-chain', '--head', `${head.count}:${head.hash}`], (line) => lines.push(line), { DATABASE_URL: url });
  return { code, lines };
};

/** The stored links as they are, read as the database's owner. */
const storedLinks = async (db: TestDatabase): Promise<Link[]> =>
  (await db.pool.query<{ seq: string; hash: string }>("SELECT seq, encode(hash, 'hex') AS hash FROM event_links ORDER BY seq")).rows.map(
    (r) => ({ seq: Number(r.seq), hash: r.hash }),
  );

/** What the database's owner can do that no trigger stops: the guards of events and event_links lifted for one transaction. */
async function asOwner(db: TestDatabase, sql: string): Promise<void> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(sql);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/**
 * A rewrite of the log by the database's owner while the API runs and seals every 50 ms (the
 * finding of issue 32: the API re-chained the edited log within a second, silently, and served the
 * forged head). Each case has an API of its own: a difference stops its sealing for good.
 */
describe('the audit chain rewritten under a running API', () => {
  let db: TestDatabase;
  let app: INestApplication;
  let lines: string[];
  const http = () => request(app.getHttpServer());
  const allocate = (handle: string) =>
    http()
      .post('/v1/allocations')
      .send({ handle, node: 'n', namespace: 'ns', pod: handle, pools: ['p'] })
      .expect(201);
  const headOf = async (): Promise<Head> => (await http().get('/v1/audit/head').expect(200)).body as Head;
  const errors = () =>
    lines.map((line) => JSON.parse(line) as { level: string; context?: string; message: string }).filter((l) => l.level === 'error');
  const scrape = async () => (await http().get('/metrics').expect(200)).text;
  const gauge = (text: string, name: string) => new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1];

  beforeEach(async () => {
    lines = [];
    db = await createTestDatabase('chain_rewrite');
    const logger = new AppLogger({ format: 'json', write: (line) => lines.push(line) });
    app = await createApp(
      loadConfig({ DATABASE_URL: db.url, PORT: '0', IPAM_KUBERNETES_CONSUMER: 'off', IPAM_AUDIT_SEAL_INTERVAL_MS: '50' }),
      { logger },
    );
    await app.listen(0, '127.0.0.1');
    await http().post('/v1/pools').send({ name: 'p', cidr: '10.8.0.0/24' }).expect(201);
    for (const handle of ['a', 'b', 'c', 'd', 'e']) await allocate(handle);
    await http().delete('/v1/allocations/b').expect(204);
  });
  afterEach(async () => {
    await app.close();
    await db.drop();
  });

  /** The head once the sealer has covered every event written so far. */
  async function sealedHead(): Promise<Head> {
    const events = Number((await db.pool.query('SELECT count(*) FROM events')).rows[0].count);
    return eventually(headOf, (head) => head.count === events);
  }

  /**
   * Tampers with `sql` once the log is sealed, appends more (something to seal), and waits for the
   * API's error; answers what the API shows then, and the links as the attacker left them.
   */
  async function rewrite(sql: (head: Head) => string) {
    const head = await sealedHead();
    await asOwner(db, sql(head));
    const left = await storedLinks(db);
    await allocate('after-1');
    await allocate('after-2');
    const error = await eventually(
      () => errors().find((line) => line.context === 'audit'),
      (line) => line !== undefined,
      10_000,
      'the sealer to log the difference',
    );
    // several more rounds, in which the old sealer re-chained the log
    await sleep(500);
    const verbose = await http().get('/readyz?verbose').expect(200);
    return {
      head,
      left,
      error: error!.message,
      check: (verbose.body as { checks: Record<string, { status: string; required: boolean; link?: number; message?: string }> }).checks[
        'audit-chain'
      ],
      metrics: await scrape(),
      served: await headOf(),
      stored: await storedLinks(db),
    };
  }

  /** What every case shows: nothing re-chained, the head sealed before still served, and the difference reported at `link`. */
  function expectReported(seen: Awaited<ReturnType<typeof rewrite>>, link: number, why: RegExp) {
    expect(seen.stored).toEqual(seen.left);
    expect(seen.served).toEqual(seen.head);
    expect(seen.error).toMatch(
      new RegExp(
        `^the audit chain no longer extends the head this replica sealed or checked last, ${seen.head.count}:${seen.head.hash}: first differing link ${link}: `,
      ),
    );
    expect(seen.error).toMatch(why);
    expect(seen.check).toEqual({ status: 'failed', required: false, link, message: expect.stringMatching(why) });
    expect(gauge(seen.metrics, 'ipledger_audit_chain_broken')).toBe('1');
    expect(gauge(seen.metrics, 'ipledger_audit_chain_first_differing_link')).toBe(String(link));
    expect(seen.metrics).toMatch(/^ipledger_readiness_check\{check="audit-chain",required="false"\} 0$/m);
  }

  it('an event edited and every link deleted: no re-chaining, an error at link 1, and verify-chain --head of the head before fails', async () => {
    const seen = await rewrite(
      () => `UPDATE events SET data = jsonb_set(data, '{ip}', '"10.8.0.99"') WHERE stream_id = 'pool-p' AND version = 2;
             DELETE FROM event_links`,
    );
    expect(seen.left).toEqual([]);
    expectReported(seen, 1, /link 1: the stored chain ends at link 0, short of link \d+ sealed before: links were deleted/);
    // the whole chain read back to the head held: the log no longer chains to it
    expect(seen.error).toContain(`link ${seen.head.count}: the log chains to `);
    const verified = await verifyChain(db.url, seen.head);
    expect(verified.code).toBe(1);
    expect(verified.lines[0]).toMatch(
      new RegExp(
        `^BROKEN link ${seen.head.count}: the log chains to [0-9a-f]{64}, not to the head's ${seen.head.hash}: events were changed, and the stored links end at link 0$`,
      ),
    );
  });

  it('the chain shortened (its last 3 links deleted): no re-chaining, an error at the first missing link', async () => {
    const seen = await rewrite((head) => `DELETE FROM event_links WHERE seq > ${head.count - 3}`);
    expect(seen.left).toHaveLength(seen.head.count - 3);
    expectReported(seen, seen.head.count - 2, /links were deleted/);
    // the events are as sealed: by the contract the head still verifies, the missing links are the API's finding
    expect((await verifyChain(db.url, seen.head)).code).toBe(0);
  });

  it("a link's hash changed: no re-chaining, an error at that link", async () => {
    const seen = await rewrite((head) => `UPDATE event_links SET hash = sha256('forged') WHERE seq = ${head.count - 2}`);
    expectReported(seen, seen.head.count - 2, /the event or its link changed since it was sealed/);
    const verified = await verifyChain(db.url, seen.head);
    expect(verified.code).toBe(1);
    expect(verified.lines[0]).toMatch(new RegExp(`^BROKEN link ${seen.head.count - 2} \\(`));
  });

  it('the event under the newest link edited, the links left alone: no re-chaining, an error at that link', async () => {
    const seen = await rewrite(
      (head) => `UPDATE events SET recorded_at = recorded_at - interval '1 day'
                  WHERE position = (SELECT position FROM event_links WHERE seq = ${head.count})`,
    );
    expectReported(
      seen,
      seen.head.count,
      new RegExp(`link ${seen.head.count} \\(position \\d+, pool-p version \\d+\\): the event or its link changed`),
    );
    const verified = await verifyChain(db.url, seen.head);
    expect(verified.code).toBe(1);
    expect(verified.lines[0]).toMatch(
      new RegExp(`^BROKEN link ${seen.head.count} \\(position \\d+, pool-p version \\d+\\): the event changed since it was sealed`),
    );
  });

  it('with no rewrite: sealing goes on, the check stays ok, nothing is logged', async () => {
    const before = await sealedHead();
    for (const handle of ['f', 'g', 'h']) await allocate(handle);
    const after = await sealedHead();
    expect(after.count).toBe(before.count + 3);
    expect((await http().get('/readyz?verbose').expect(200)).body.checks['audit-chain']).toEqual({ status: 'ok', required: false });
    const metrics = await scrape();
    expect(gauge(metrics, 'ipledger_audit_chain_broken')).toBe('0');
    expect(gauge(metrics, 'ipledger_audit_chain_first_differing_link')).toBe('0');
    expect(errors()).toEqual([]);
    expect((await verifyChain(db.url, after)).code).toBe(0);
  });
});

/**
 * Two replicas sealing one database: each checks what the other sealed against the head it holds,
 * so neither may take the other's links for a rewrite.
 */
describe('two API replicas sealing the same database', () => {
  let db: TestDatabase;
  let replicas: INestApplication[];

  beforeAll(async () => {
    db = await createTestDatabase('chain_two_sealers');
    const env = { IPAM_AUDIT_SEAL_INTERVAL_MS: '10' };
    replicas = [await listenApi(db.url, env), await listenApi(db.url, env)];
  });
  afterAll(async () => {
    for (const app of replicas) await app.close();
    await db.drop();
  });

  it('seal on under concurrent appends through both, and neither reports a difference', async () => {
    const via = (i: number) => request(replicas[i % 2].getHttpServer());
    await via(0).post('/v1/pools').send({ name: 'p', cidr: '10.9.0.0/22' }).expect(201);
    for (let batch = 0; batch < 15; batch++) {
      await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          via(i)
            .post('/v1/allocations')
            .send({ handle: `h${batch}-${i}`, node: 'n', namespace: 'ns', pod: `p${batch}-${i}`, pools: ['p'] })
            .expect(201),
        ),
      );
    }
    const events = Number((await db.pool.query('SELECT count(*) FROM events')).rows[0].count);
    for (let i = 0; i < 2; i++) {
      const head = await eventually(
        async () => (await via(i).get('/v1/audit/head').expect(200)).body as Head,
        (h) => h.count === events,
      );
      expect((await via(i).get('/readyz?verbose').expect(200)).body.checks['audit-chain']).toEqual({ status: 'ok', required: false });
      expect((await via(i).get('/metrics').expect(200)).text).toMatch(/^ipledger_audit_chain_broken 0$/m);
      expect((await verifyChain(db.url, head)).code).toBe(0);
    }
  });
});
