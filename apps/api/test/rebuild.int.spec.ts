import { appendToStreams } from '@ipledger/event-store';
import { projectEvents } from '@ipledger/projections';
import { runCli } from '../src/cli';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const pod = (handle: string) => ({ handle, node: 'worker-1', namespace: 'rebuild', pod: `pod-${handle}`, network: 'pods' });

describe('replay --rebuild: the read models rebuilt from the log and swapped in, while the API runs', () => {
  let api: TestApi;
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: api.db.url });
    return { code, lines };
  };

  const expectVerified = async () => {
    const { code, lines } = await cli('replay', '--verify');
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; every read model matches the log`);
    expect(code).toBe(0);
  };

  beforeAll(async () => {
    api = await startTestApi('rebuild');
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'rack-1', cidr: '10.9.0.0/24', gateway: '10.9.0.1', labels: { zone: 'a', tier: 'web' } })
      .expect(201);
    await api.http().post('/v1/pools').send({ name: 'rack-2', cidr: '10.9.1.0/24' }).expect(201);
    await api
      .http()
      .put('/v1/nodes/worker-1')
      .send({ labels: { zone: 'a' } })
      .expect(200);
    for (const h of ['a', 'b', 'c']) await api.http().post('/v1/allocations').send(pod(h)).expect(201);
    await api.http().delete('/v1/allocations/b').expect(204);
    await api.http().put('/v1/statefulsets/rebuild/db').send({ replicas: 3, pool: 'rack-2' }).expect(200);
  });
  afterAll(() => api.close());

  it('restores projection rows altered by hand, and verify then finds none (exit 0)', async () => {
    await api.db.pool.query("UPDATE allocations SET node = 'elsewhere' WHERE handle = 'a'");
    await api.db.pool.query("DELETE FROM pool_labels WHERE pool = 'rack-1' AND key = 'tier'");
    await api.db.pool.query("INSERT INTO nodes (name, labels, version, updated_at) VALUES ('ghost', '{}', 1, now())");
    await api.db.pool.query("UPDATE pools SET allocated = 99 WHERE name = 'rack-2'");
    expect((await cli('replay', '--verify')).code).toBe(1);

    const { code, lines } = await cli('replay', '--rebuild');
    expect(code).toBe(0);
    expect(lines).toEqual(
      expect.arrayContaining([
        'pools: 2 rows (1 deleted, 1 inserted)',
        'allocations: 2 rows (1 deleted, 1 inserted)',
        'nodes: 1 rows (1 deleted, 0 inserted)',
        'statefulsets: 1 rows (0 deleted, 0 inserted)',
      ]),
    );
    // rack-2's row went out and back in: nothing else of it changed
    expect(lines.find((l) => l.startsWith('pool_labels:'))).toBe('pool_labels: 2 rows (0 deleted, 1 inserted)');
    expect(lines.at(-1)).toMatch(
      new RegExp(
        `^${await api.eventCount()} events replayed \\(0 appended during the rebuild\\) in [\\d.]+ s, \\d+ events/s, peak RSS \\d+ MB; every read model rebuilt$`,
      ),
    );
    await expectVerified();
    const a = await api.http().get('/v1/allocations/a').expect(200);
    expect(a.body.items[0].node).toBe('worker-1');
  });

  it('fills read models that are empty (a first rebuild) with every row', async () => {
    await api.db.pool.query('TRUNCATE pools, pool_labels, pool_ranges, pool_blocks, nodes, allocations, statefulsets');
    const { code, lines } = await cli('replay', '--rebuild');
    expect(code).toBe(0);
    expect(lines).toEqual(expect.arrayContaining(['pools: 2 rows (0 deleted, 2 inserted)', 'allocations: 2 rows (0 deleted, 2 inserted)']));
    await expectVerified();
    await api.http().get('/v1/allocations/a').expect(200);
  });

  it('loses nothing that the API writes while it runs', async () => {
    const handles = Array.from({ length: 60 }, (_, i) => `w-${i}`);
    let done = 0;
    const writes = (async () => {
      for (const h of handles) {
        await api.http().post('/v1/allocations').send(pod(h)).expect(201);
        if (Number(h.slice(2)) % 3 === 0) await api.http().delete(`/v1/allocations/${h}`).expect(204);
        done++;
      }
    })();
    while (done < 10) await new Promise((resolve) => setTimeout(resolve, 5));
    const rebuilt = await cli('replay', '--rebuild');
    await writes;
    expect(rebuilt.code).toBe(0);
    await expectVerified();
    const { rows } = await api.db.pool.query("SELECT count(*) FROM allocations WHERE handle LIKE 'w-%'");
    expect(Number(rows[0].count)).toBe(40);
  });

  it('waits for an append in flight and takes its events into the swap', async () => {
    let commit!: () => void;
    const held = new Promise<void>((resolve) => (commit = resolve));
    const append = appendToStreams(
      api.db.pool,
      [{ streamId: 'node-late', expectedVersion: 0, events: [{ type: 'NodeLabelsSet', data: { name: 'late', labels: { zone: 'b' } } }] }],
      {
        inTransaction: async (client, events) => {
          await projectEvents(client, events);
          await held;
        },
      },
    );
    const rebuild = cli('replay', '--rebuild');
    // the rebuild queues behind the append's lock on events: only then does the append commit
    for (;;) {
      const { rows } = await api.db.pool.query(
        "SELECT count(*) FROM pg_locks WHERE relation = 'events'::regclass AND mode = 'ExclusiveLock' AND NOT granted",
      );
      if (Number(rows[0].count) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    commit();
    await append;
    const { code, lines } = await rebuild;
    expect(code).toBe(0);
    expect(lines.at(-1)).toMatch(/\(1 appended during the rebuild\)/);
    expect(lines).toContain('nodes: 2 rows (0 deleted, 0 inserted)');
    await expectVerified();
  });

  it('prints usage for another replay flag (exit 2)', async () => {
    const { code, lines } = await cli('replay', '--rewrite');
    expect(code).toBe(2);
    expect(lines[0]).toContain('replay --rebuild');
  });
});
