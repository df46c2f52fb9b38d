import { runCli } from '../src/cli';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('tamper evidence: the hash chain and the CLI', () => {
  let api: TestApi;
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: api.db.url });
    return { code, lines };
  };

  beforeAll(async () => {
    api = await startTestApi('tamper');
    await api.http().post('/v1/pools').send({ name: 'p', cidr: '10.6.0.0/28' }).expect(201);
    for (const h of ['a', 'b', 'c'])
      await api.http().post('/v1/allocations').send({ handle: h, node: 'n', namespace: 'ns', pod: h }).expect(201);
    await api.http().delete('/v1/allocations/b').expect(204);
  });
  afterAll(() => api.close());

  it('chains every event to the previous one of its stream, and verify-chain says so', async () => {
    const { rows } = await api.db.pool.query(
      "SELECT version, encode(hash, 'hex') AS hash FROM events WHERE stream_id = 'pool-p' ORDER BY version",
    );
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(5);
    expect(await cli('verify-chain')).toEqual({ code: 0, lines: ['every hash chain is intact'] });
  });

  it('prints an address history', async () => {
    const { code, lines } = await cli('ip-history', '10.6.0.2');
    expect(code).toBe(0);
    expect(lines.map((l) => l.split('\t')[1])).toEqual(['IpAllocated', 'IpReleased']);
    expect((await cli('ip-history', '10.6.0.02')).code).toBe(2);
  });

  it('replay --verify: the read models rebuilt from the log match the live ones', async () => {
    const { code, lines } = await cli('replay', '--verify');
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; every read model matches the log`);
    expect(code).toBe(0);
  });

  it('replay --verify names a projection row altered by hand (exit 1)', async () => {
    await api.db.pool.query("UPDATE allocations SET node = 'elsewhere' WHERE handle = 'a'");
    const { code, lines } = await cli('replay', '--verify');
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

  it('names the first broken link of a hand-inserted event with a wrong hash, and of an edited one (exit 1)', async () => {
    const client = await api.db.pool.connect();
    try {
      // what only a superuser bypassing the triggers could do
      await client.query("SET session_replication_role = 'replica'");
      await client.query(
        `INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash)
         VALUES ('pool-p', 6, gen_random_uuid(), 'IpReleased', '{"pool":"p","ip":"10.6.0.1","handle":"a"}', '{}', sha256('forged'))`,
      );
      await client.query(
        `UPDATE events SET data = jsonb_set(data, '{ip}', '"10.6.0.9"') WHERE stream_id = 'node-x' OR (stream_id = 'pool-p' AND version = 2)`,
      );
      await client.query("SET session_replication_role = 'origin'");
    } finally {
      client.release();
    }
    const { code, lines } = await cli('verify-chain');
    expect(code).toBe(1);
    expect(lines[0]).toMatch(/^BROKEN pool-p at version 2 \(position \d+\): stored [0-9a-f]{64}, expected [0-9a-f]{64}$/);
    expect(lines.at(-1)).toBe('1 stream(s) with a broken hash chain');
  });

  it('refuses UPDATE and DELETE on events', async () => {
    await expect(api.db.pool.query("UPDATE events SET type = 'X' WHERE version = 1")).rejects.toThrow(/append-only/);
    await expect(api.db.pool.query('DELETE FROM events')).rejects.toThrow(/append-only/);
  });

  it('prints usage for an unknown command (exit 2)', async () => {
    const { code, lines } = await cli('frobnicate');
    expect(code).toBe(2);
    expect(lines[0]).toContain('usage: ipledger <command>');
  });
});
