import { SEAL_LOCK_KEY, sealChain } from '@ipledger/event-store';
import { Client, Pool } from 'pg';
import { runCli } from '../src/cli';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { databaseUrl, dropDatabase, uniqueDatabaseName } from '../../../test/support/test-database';
import { eventually } from '../../../test/support/eventually';

interface Head {
  count: number;
  hash: string;
  at: string;
}

const cli = async (url: string, ...args: string[]) => {
  const lines: string[] = [];
  const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: url });
  return { code, lines };
};

const headOf = async (api: TestApi): Promise<Head> => (await api.http().get('/v1/audit/head').expect(200)).body as Head;

/** the head once the sealer has covered every event written so far */
const sealedHead = async (api: TestApi): Promise<Head> => {
  const events = await api.eventCount();
  const head = await eventually(
    () => headOf(api),
    (h) => h.count === events,
  );
  expect(head.count).toBe(events);
  return head;
};

/** The positions of the log in the feed's order (transaction, then position). */
const feedOrder = async (db: Pool): Promise<string[]> =>
  (await db.query<{ position: string }>('SELECT position FROM events ORDER BY transaction_id, position')).rows.map((r) => r.position);

describe('the audit chain: one global chain sealed in the background', () => {
  let api: TestApi;
  const allocate = (handle: string, pool: string) =>
    api
      .http()
      .post('/v1/allocations')
      .send({ handle, node: 'n', namespace: 'ns', pod: handle, pools: [pool] })
      .expect(201);

  beforeAll(async () => {
    api = await startTestApi('tamper', { env: { IPAM_AUDIT_SEAL_INTERVAL_MS: '50' } });
    await api.http().post('/v1/pools').send({ name: 'p', cidr: '10.6.0.0/28' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'q', cidr: '10.7.0.0/24' }).expect(201);
    await api
      .http()
      .put('/v1/nodes/x')
      .send({ labels: { a: '1' } })
      .expect(200);
    await api
      .http()
      .put('/v1/nodes/x')
      .send({ labels: { a: '2' } })
      .expect(200);
    for (const h of ['a', 'b', 'c'])
      await api
        .http()
        .post('/v1/allocations')
        .send({ handle: h, node: 'n', namespace: 'ns', pod: h, pools: ['p'] })
        .expect(201);
    await api.http().delete('/v1/allocations/b').expect(204);
    // concurrent appends commit in an order of their own: the chain follows the commits
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api
          .http()
          .post('/v1/allocations')
          .send({ handle: `q${i}`, node: 'n', namespace: 'ns', pod: `q${i}`, pools: ['q'] })
          .expect(201),
      ),
    );
    // enough events in pool q for the API to snapshot it (every 200 events at least)
    for (let batch = 0; batch < 10; batch++) {
      const handles = Array.from({ length: 10 }, (_, j) => `s${batch}-${j}`);
      await Promise.all(handles.map((h) => allocate(h, 'q')));
      await Promise.all(handles.map((h) => api.http().delete(`/v1/allocations/${h}`).expect(204)));
    }
  });
  afterAll(() => api?.close());

  it('links every committed event once, in the feed order, and GET /v1/audit/head names the last link', async () => {
    const head = await sealedHead(api);
    const { rows } = await api.db.pool.query<{ seq: string; position: string; hash: string }>(
      "SELECT seq, position, encode(hash, 'hex') AS hash FROM event_links ORDER BY seq",
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: head.count }, (_, i) => i + 1));
    expect(rows.map((r) => r.position)).toEqual(await feedOrder(api.db.pool));
    expect(new Set(rows.map((r) => r.hash)).size).toBe(head.count);
    expect(head).toEqual({ count: rows.length, hash: rows.at(-1)!.hash, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });
    expect(await cli(api.db.url, 'verify-chain')).toEqual({
      code: 0,
      lines: [`the audit chain is intact: ${head.count} links over ${head.count} events`],
    });
    expect(await cli(api.db.url, 'verify-chain', '--head', `${head.count}:${head.hash}`)).toEqual({
      code: 0,
      lines: [`the first ${head.count} events chain to the head ${head.count}:${head.hash}; ${head.count} links intact`],
    });
  });

  it('prints an address history', async () => {
    const { code, lines } = await cli(api.db.url, 'ip-history', '10.6.0.2');
    expect(code).toBe(0);
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['IpAllocated', 'IpReleased']);
    expect((await cli(api.db.url, 'ip-history', '10.6.0.02')).code).toBe(2);
  });

  it('replay --verify: the read models rebuilt from the log match the live ones, and the snapshots the fold of their streams', async () => {
    const { rows } = await api.db.pool.query("SELECT count(*)::int AS n FROM stream_snapshots WHERE stream_id = 'pool-q'");
    expect(rows[0].n).toBeGreaterThanOrEqual(1);
    const { code, lines } = await cli(api.db.url, 'replay', '--verify');
    expect(lines.at(-2)).toBe(`${rows[0].n} snapshot(s) checked; every one matches the fold of its stream`);
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; every read model matches the log`);
    expect(code).toBe(0);
  });

  it('replay --verify names a projection row altered by hand (exit 1)', async () => {
    await api.db.pool.query("UPDATE allocations SET node = 'elsewhere' WHERE handle = 'a'");
    const { code, lines } = await cli(api.db.url, 'replay', '--verify');
    expect(code).toBe(1);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^DIFFERENT allocations \(live only\): .*"handle":"a".*"node":"elsewhere"/),
        expect.stringMatching(/^DIFFERENT allocations \(rebuilt only\): .*"handle":"a".*"node":"n"/),
      ]),
    );
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; 2 row(s) differ`);
    await api.db.pool.query("UPDATE allocations SET node = 'n' WHERE handle = 'a'");
  });

  it('chains an event that commits late before the events that committed after it began (the feed reader rule)', async () => {
    const before = await sealedHead(api);
    const late = await api.db.pool.connect();
    try {
      await late.query('BEGIN');
      await late.query(
        `INSERT INTO events (stream_id, version, event_id, type, data) VALUES ('late-1', 1, gen_random_uuid(), 'AuditProbe', '{}')`,
      );
      await api
        .http()
        .post('/v1/allocations')
        .send({ handle: 'after-late', node: 'n', namespace: 'ns', pod: 'l', pools: ['q'] })
        .expect(201);
      // a while of sealing with the late transaction open: the chain does not pass it
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await headOf(api)).count).toBe(before.count);
      await late.query('COMMIT');
    } finally {
      late.release();
    }
    const head = await sealedHead(api);
    const { rows } = await api.db.pool.query<{ stream_id: string }>(
      'SELECT e.stream_id FROM event_links l JOIN events e USING (position) WHERE l.seq > $1 ORDER BY l.seq',
      [before.count],
    );
    expect(rows[0].stream_id).toBe('late-1');
    expect(rows.slice(1).every((r) => r.stream_id === 'pool-q')).toBe(true);
    expect((await cli(api.db.url, 'verify-chain', '--head', `${head.count}:${head.hash}`)).code).toBe(0);
  });

  it('seals with several replicas at once: one link an event, none twice', async () => {
    const replicas = new Pool({ connectionString: api.db.url, max: 4 });
    try {
      // a backlog of several batches, which four sealers (and the API's own) go at together
      await api.db.pool.query(
        `INSERT INTO events (stream_id, version, event_id, type, data)
         SELECT 'race-' || (i % 7), i / 7 + 1, gen_random_uuid(), 'AuditProbe', '{}' FROM generate_series(0, 3499) i ORDER BY i`,
      );
      const sealers = Array.from({ length: 4 }, async () => {
        let sealed = 0;
        for (let round = 0; round < 20; round++) sealed += (await sealChain(replicas, { limit: 250 })).sealed;
        return sealed;
      });
      expect((await Promise.all(sealers)).every((n) => n >= 0)).toBe(true);
      const head = await sealedHead(api);
      const { rows } = await api.db.pool.query('SELECT count(*)::int AS links, count(DISTINCT position)::int AS events FROM event_links');
      expect(rows[0]).toEqual({ links: head.count, events: head.count });
      expect((await cli(api.db.url, 'verify-chain', '--head', `${head.count}:${head.hash}`)).code).toBe(0);
    } finally {
      await replicas.end();
    }
  });

  it('refuses UPDATE and DELETE on events and on the chain', async () => {
    await expect(api.db.pool.query("UPDATE events SET type = 'X' WHERE version = 1")).rejects.toThrow(/append-only/);
    await expect(api.db.pool.query('DELETE FROM events')).rejects.toThrow(/append-only/);
    await expect(api.db.pool.query("UPDATE event_links SET hash = '\\x00'")).rejects.toThrow(/append-only/);
    await expect(api.db.pool.query('DELETE FROM event_links')).rejects.toThrow(/append-only/);
  });

  it('prints usage for an unknown command or a malformed head (exit 2)', async () => {
    const { code, lines } = await cli(api.db.url, 'frobnicate');
    expect(code).toBe(2);
    expect(lines[0]).toContain('usage: ipledger <command>');
    for (const head of ['12', '12:ABC', `x:${'0'.repeat(64)}`, `1:${'A'.repeat(64)}`]) {
      expect(await cli(api.db.url, 'verify-chain', '--head', head)).toEqual({
        code: 2,
        lines: [expect.stringContaining('must be <count>:<hash>')],
      });
    }
  });

  /**
   * What the database's owner can do that the triggers do not stop: as the superuser, in a copy of
   * the database, with the head taken (GET /v1/audit/head) before. Each tampering is tried twice:
   * with the stored links left as they were (the CLI names the link it broke), and with the links
   * rewritten by the owner re-sealing the tampered log (only the head kept outside still tells).
   */
  describe('tampering as the superuser, in a copy of the database', () => {
    let head: Head;
    let source: string;
    const copies: string[] = [];

    beforeAll(async () => {
      head = await sealedHead(api);
      source = new URL(api.db.url).pathname.slice(1);
      // CREATE DATABASE ... TEMPLATE needs the source without sessions: stop the API and its pool
      await api.app.close();
      await api.db.pool.end();
      await eventually(
        async () =>
          (await superuser('postgres', (c) => c.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [source])))
            .rows[0].n,
        (n) => n === 0,
      );
    });
    afterAll(async () => {
      for (const name of copies) await dropDatabase(name);
      await dropDatabase(source);
      api = undefined as unknown as TestApi; // dropped here
    });

    async function superuser<T>(database: string, work: (client: Client) => Promise<T>): Promise<T> {
      const client = new Client({ connectionString: databaseUrl(database) });
      await client.connect();
      try {
        return await work(client);
      } finally {
        await client.end();
      }
    }

    /** a copy of the sealed database, tampered with by `sql` (the append-only guards lifted first) */
    async function tamperedCopy(sql: string, options: { reseal?: boolean } = {}): Promise<string> {
      const name = uniqueDatabaseName('tamper_copy');
      copies.push(name);
      await superuser('postgres', (c) => c.query(`CREATE DATABASE ${c.escapeIdentifier(name)} TEMPLATE ${c.escapeIdentifier(source)}`));
      await superuser(name, async (c) => {
        await c.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
        // a forger also lifts the refusal of version gaps (migration 016)
        await c.query('ALTER TABLE events DISABLE TRIGGER events_contiguous');
        await c.query(sql);
        if (options.reseal) {
          await c.query('ALTER TABLE event_links DISABLE TRIGGER USER');
          await c.query('DELETE FROM event_links');
        }
      });
      if (options.reseal) {
        const pool = new Pool({ connectionString: databaseUrl(name), max: 1 });
        try {
          while ((await sealChain(pool)).sealed > 0);
        } finally {
          await pool.end();
        }
      }
      return databaseUrl(name);
    }

    const verify = (url: string) => cli(url, 'verify-chain', '--head', `${head.count}:${head.hash}`);
    const position = async (where: string): Promise<string> =>
      (await superuser(source, (c) => c.query<{ position: string }>(`SELECT position::text FROM events WHERE ${where}`))).rows[0].position;

    it('passes an untouched copy, with and without --head, and fails a head the log is too short for', async () => {
      const url = await tamperedCopy('SELECT 1');
      expect((await verify(url)).code).toBe(0);
      expect((await cli(url, 'verify-chain')).code).toBe(0);
      const longer = await cli(url, 'verify-chain', '--head', `${head.count + 1}:${head.hash}`);
      expect(longer.code).toBe(1);
      expect(longer.lines[0]).toBe(
        `BROKEN the log holds ${head.count} committed events, fewer than the head's ${head.count + 1}: events were removed`,
      );
      const other = await cli(url, 'verify-chain', '--head', `${head.count}:${'0'.repeat(64)}`);
      expect(other.code).toBe(1);
      expect(other.lines[0]).toBe(
        `BROKEN link ${head.count}: the log chains to ${head.hash}, not to the head's ${'0'.repeat(64)}: events were changed and the stored links rewritten to match`,
      );
    });

    const changedLink = (stream: string, version: number) =>
      new RegExp(
        `^BROKEN link \\d+ \\(position \\d+, ${stream} version ${version}\\): the event changed since it was sealed \\(stored [0-9a-f]{64}, recomputed [0-9a-f]{64}\\)$`,
      );
    const misplaced = (positionNamed: string) =>
      new RegExp(`^BROKEN link \\d+: the chain covers the event at position \\d+ here, the log has position ${positionNamed} \\(`);
    const rewrittenChanged = () => `BROKEN link ${head.count}: the log chains to `;
    const shorter = (by: number) =>
      `BROKEN the log holds ${head.count - by} committed events, fewer than the head's ${head.count}: events were removed`;

    it('names the event whose recorded_at moved 30 days back; the head still tells once the links are rewritten', async () => {
      const sql = "UPDATE events SET recorded_at = recorded_at - interval '30 days' WHERE stream_id = 'pool-p' AND version = 2";
      const kept = await verify(await tamperedCopy(sql));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(changedLink('pool-p', 2));
      // that link alone (the next one still chains to the stored link), then the head, then the verdict
      expect(kept.lines[1]).toMatch(
        new RegExp(`^BROKEN link ${head.count}: the log chains to [0-9a-f]{64}, not to the head's ${head.hash}$`),
      );
      expect(kept.lines).toHaveLength(3);
      const rewritten = await verify(await tamperedCopy(sql, { reseal: true }));
      expect(rewritten.code).toBe(1);
      expect(rewritten.lines[0]).toContain(rewrittenChanged());
    });

    it('names the event whose data changed, though the old per-stream chain was re-chained with a redefined events_link_hash', async () => {
      const sql = `UPDATE events SET data = jsonb_set(data, '{ip}', '"10.6.0.9"') WHERE stream_id = 'pool-p' AND version = 3;
        CREATE OR REPLACE FUNCTION events_link_hash(previous bytea, type text, data jsonb, metadata jsonb) RETURNS bytea
          LANGUAGE sql IMMUTABLE AS $$ SELECT sha256(convert_to('forged', 'UTF8')) $$;
        UPDATE events SET hash = events_link_hash(NULL, type, data, metadata);`;
      const kept = await verify(await tamperedCopy(sql));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(changedLink('pool-p', 3));
      const rewritten = await verify(await tamperedCopy(sql, { reseal: true }));
      expect(rewritten.code).toBe(1);
      expect(rewritten.lines[0]).toContain(rewrittenChanged());
    });

    it('names every changed event, not only the first: the check goes on from the stored link', async () => {
      const sql = `UPDATE events SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = 'pool-p' AND version IN (2, 3)`;
      const kept = await verify(await tamperedCopy(sql));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(changedLink('pool-p', 2));
      expect(kept.lines[1]).toMatch(changedLink('pool-p', 3));
    });

    it("names the place of a stream's deleted last event", async () => {
      const where = "stream_id = 'pool-p' AND version = (SELECT max(version) FROM events WHERE stream_id = 'pool-p')";
      const deleted = await position(where);
      // the link that covered it is followed by others: the log is not merely shorter
      const kept = await verify(await tamperedCopy(`DELETE FROM events WHERE ${where}`));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(
        new RegExp(`^BROKEN link \\d+: the chain covers the event at position ${deleted} here, the log has position \\d+ `),
      );
      const rewritten = await verify(await tamperedCopy(`DELETE FROM events WHERE ${where}`, { reseal: true }));
      expect(rewritten.lines[0]).toBe(shorter(1));
      expect(rewritten.code).toBe(1);
    });

    it('names the place of a whole stream deleted', async () => {
      const first = await position("stream_id = 'node-x' AND version = 1");
      const kept = await verify(await tamperedCopy("DELETE FROM events WHERE stream_id = 'node-x'"));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(new RegExp(`^BROKEN link \\d+: the chain covers the event at position ${first} here`));
      const rewritten = await verify(await tamperedCopy("DELETE FROM events WHERE stream_id = 'node-x'", { reseal: true }));
      expect(rewritten.lines[0]).toBe(shorter(2));
      expect(rewritten.code).toBe(1);
    });

    it('names the last event of the log deleted', async () => {
      const last = await superuser(
        source,
        async (c) => (await c.query('SELECT position::text FROM event_links ORDER BY seq DESC LIMIT 1')).rows[0].position as string,
      );
      const sql = `DELETE FROM events WHERE position = ${last}`;
      const kept = await verify(await tamperedCopy(sql));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toBe(
        `BROKEN link ${head.count}: the chain covers the event at position ${last}, which the log no longer holds`,
      );
      expect(kept.lines).toContain(shorter(1));
      const rewritten = await verify(await tamperedCopy(sql, { reseal: true }));
      expect(rewritten.lines[0]).toBe(shorter(1));
      expect(rewritten.code).toBe(1);
    });

    it('replay --verify names a snapshot edited, one forged past its stream, and one of a format it does not read', async () => {
      const url = await tamperedCopy(`ALTER TABLE stream_snapshots DISABLE TRIGGER USER;
        UPDATE stream_snapshots SET state = jsonb_set(state, '{holders}', '[]') WHERE stream_id = 'pool-q';
        INSERT INTO stream_snapshots (stream_id, version, state)
          SELECT stream_id, 100000, state FROM stream_snapshots WHERE stream_id = 'pool-q' ORDER BY version DESC LIMIT 1;
        INSERT INTO stream_snapshots (stream_id, version, state)
          SELECT stream_id, version - 1, jsonb_set(state, '{format}', '99') FROM stream_snapshots
           WHERE stream_id = 'pool-q' AND version < 100000 ORDER BY version DESC LIMIT 1`);
      const version = await superuser(
        source,
        async (c) => (await c.query("SELECT max(version) AS v FROM stream_snapshots WHERE stream_id = 'pool-q'")).rows[0].v as number,
      );
      const { code, lines } = await cli(url, 'replay', '--verify');
      expect(code).toBe(1);
      expect(lines).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(
              `^DIFFERENT snapshot of pool-q at version ${version}: stored .*"holders":\\[\\].*, the fold of its events gives .*"holders":\\[\\["10\\.7\\.`,
            ),
          ),
          expect.stringMatching(
            /^DIFFERENT snapshot of pool-q at version 100000: the stream has \d+ events, fewer than the snapshot's version$/,
          ),
          `DIFFERENT snapshot of pool-q at version ${version - 1}: its format is not one this release reads (a newer release wrote it?): loads replay this stream instead`,
        ]),
      );
      expect(lines.at(-2)).toMatch(/^\d+ snapshot\(s\) checked; 3 differ from the fold of their stream$/);
    });

    it('names a forged event inserted in the middle of the log', async () => {
      // committed "in" the transaction of an early event, so the feed orders it among the first ones
      const forged = `INSERT INTO events (position, transaction_id, stream_id, version, event_id, type, data)
        SELECT (SELECT max(position) + 1000 FROM events), transaction_id, 'pool-p', 99, gen_random_uuid(), 'IpReleased',
               '{"pool":"p","ip":"10.6.0.1","handle":"a"}'
          FROM events WHERE stream_id = 'pool-p' AND version = 2`;
      const forgedPosition = String(Number(await position('position = (SELECT max(position) FROM events)')) + 1000);
      const kept = await verify(await tamperedCopy(forged));
      expect(kept.code).toBe(1);
      expect(kept.lines[0]).toMatch(misplaced(forgedPosition));
      const rewritten = await verify(await tamperedCopy(forged, { reseal: true }));
      expect(rewritten.code).toBe(1);
      expect(rewritten.lines[0]).toContain(rewrittenChanged());
    });
  });
});

describe('the audit chain trailing the log', () => {
  let api: TestApi;
  // the sealer runs at start-up, then not again within the test
  beforeAll(async () => (api = await startTestApi('tamper-trailing', { env: { IPAM_AUDIT_SEAL_INTERVAL_MS: '60000' } })));
  afterAll(() => api.close());

  it('shows in ipledger_audit_unsealed_events what the chain does not cover yet, and the head does not count it', async () => {
    // holding the sealers' lock keeps the start-up round, whenever it runs, from sealing the new event
    const sealers = await api.db.pool.connect();
    await sealers.query('begin');
    await sealers.query('select pg_advisory_xact_lock($1)', [SEAL_LOCK_KEY]);
    await api.http().post('/v1/pools').send({ name: 'trail', cidr: '10.9.0.0/24' }).expect(201);
    const gauge = async () => /^ipledger_audit_unsealed_events (\d+)$/m.exec((await api.http().get('/metrics').expect(200)).text)?.[1];
    expect(await eventually(gauge, (value) => value === '1')).toBe('1');
    expect(await headOf(api)).toEqual({ count: 0, hash: '0'.repeat(64), at: expect.any(String) });
    await sealers.query('commit');
    sealers.release();
    await sealChain(api.db.pool);
    expect(await gauge()).toBe('0');
    expect((await headOf(api)).count).toBe(1);
  });
});
