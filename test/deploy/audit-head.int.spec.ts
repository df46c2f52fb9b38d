import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sealChain, type StoredHead } from '@ipledger/event-store';
import { parse } from 'yaml';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ROOT = join(__dirname, '../..');
const CRONJOB = join(ROOT, 'deploy/components/audit-head/audit-head-cronjob.yaml');

/**
 * The `verify` step of the audit-head CronJob, its own shell text run as the Job runs it (the CLI
 * from dist/, as in the image's /app) against a real database: the head stored at the previous run
 * must still verify, or the run fails loudly and stores nothing.
 */
describe('the audit-head CronJob verifies the head it stored last', () => {
  let db: TestDatabase;
  let heads: string;
  let sealed: StoredHead;
  const script: string = parse(readFileSync(CRONJOB, 'utf8')).spec.jobTemplate.spec.template.spec.initContainers.find(
    (c: { name: string }) => c.name === 'verify',
  ).args[0];

  const verifyStep = (databaseUrl = db.url) => {
    const run = spawnSync('/bin/sh', ['-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HEADS: heads, DATABASE_URL: databaseUrl, IPAM_LOG_FORMAT: 'text' },
    });
    return { code: run.status, out: run.stdout, err: run.stderr };
  };
  const store = (head: { count: number; hash: string }) =>
    writeFileSync(join(heads, 'previous.json'), JSON.stringify({ ...head, at: new Date().toISOString() }));

  beforeAll(async () => {
    db = await createTestDatabase('audit_head_job');
    await db.pool.query(
      `INSERT INTO events (stream_id, version, event_id, type, data)
       SELECT 'probe', i, gen_random_uuid(), 'AuditProbe', jsonb_build_object('n', i) FROM generate_series(1, 20) i ORDER BY i`,
    );
    sealed = (await sealChain(db.pool)).head!;
  });
  afterAll(() => db.drop());
  beforeEach(() => (heads = mkdtempSync(join(tmpdir(), 'audit-heads-'))));
  afterEach(() => rmSync(heads, { recursive: true, force: true }));

  it('passes the first run, with no head stored yet', () => {
    expect(verifyStep()).toEqual({ code: 0, out: 'no head stored before: nothing to verify yet\n', err: '' });
  });

  it('passes while the log still chains to the head stored last', () => {
    store(sealed);
    const run = verifyStep();
    expect(run).toEqual({ code: 0, out: expect.stringContaining(`the first 20 events chain to the head 20:${sealed.hash}`), err: '' });
  });

  it('fails loudly (exit 1, AUDIT CHAIN BROKEN) after the owner edited an event and re-chained the log to match', async () => {
    store(sealed);
    const owner = await db.pool.connect();
    try {
      await owner.query('BEGIN');
      await owner.query('SET LOCAL session_replication_role = replica');
      await owner.query(`UPDATE events SET data = '{"n": 999}' WHERE stream_id = 'probe' AND version = 7`);
      await owner.query('DELETE FROM event_links');
      await owner.query('COMMIT');
    } finally {
      owner.release();
    }
    // a sealer that holds no head (a replica started after the rewrite) chains the edited log as it finds it
    while ((await sealChain(db.pool)).sealed > 0);
    const run = verifyStep();
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^BROKEN link 20: the log chains to [0-9a-f]{64}, not to the head's /);
    expect(run.err).toBe(
      `AUDIT CHAIN BROKEN: the head stored at the previous run, 20:${sealed.hash}, no longer verifies against the log: it was rewritten since. No new head is stored. See docs/operations.md, "When the audit chain breaks".\n`,
    );
  });

  it('fails (exit 5, as the CLI) when it cannot check: the database unreachable', () => {
    store({ count: 1, hash: '0'.repeat(64) });
    const run = verifyStep('postgres://postgres@127.0.0.1:1/ipledger');
    expect(run.code).toBe(5);
    expect(run.err).toContain(
      `the head stored at the previous run, 1:${'0'.repeat(64)}, could not be verified (exit 5): no new head is stored`,
    );
  });
});
