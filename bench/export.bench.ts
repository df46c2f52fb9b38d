/**
 * npm run bench:export — the restore drill of docs/operations.md on a log of BENCH_EVENTS (default
 * 1,000,000) events: `ipledger export` to a file, then `ipledger import` of it, with --head, into a
 * new database (every link recomputed, every read model rebuilt, snapshots taken), each as the
 * built CLI in its own process as an operator runs it; events/s, the file's size and each process's
 * peak RSS. The log is a busy cluster's history decided by the real aggregates
 * (test/support/synthetic-log.ts), inserted in bulk and sealed as the API's sealer would; the copy
 * must then pass replay --verify and have the same head.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readChainHead, sealChain } from '@ipledger/event-store';
import { Pool } from 'pg';
import { SyntheticLog } from '../test/support/synthetic-log';
import { databaseUrl, dropDatabase, uniqueDatabaseName } from '../test/support/test-database';
import { freshDatabase } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const POOLS = Number(process.env.BENCH_POOLS ?? 2000);
const CLI = join(__dirname, '../dist/cli.js');

async function cli(url: string, ...args: string[]): Promise<{ lines: string[]; seconds: number }> {
  const started = Date.now();
  const { stdout } = await promisify(execFile)('node', [CLI, ...args], {
    env: { ...process.env, DATABASE_URL: url },
    maxBuffer: 16 * 1024 * 1024,
  });
  return { lines: stdout.trim().split('\n'), seconds: (Date.now() - started) / 1000 };
}

async function headOf(url: string): Promise<{ count: number; hash: string }> {
  const pool = new Pool({ connectionString: url, max: 1 });
  const client = await pool.connect();
  try {
    const head = await readChainHead(client);
    return { count: head?.count ?? 0, hash: head?.hash ?? '' };
  } finally {
    client.release();
    await pool.end();
  }
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const db = await freshDatabase('export');
  const target = uniqueDatabaseName('bench_import');
  const dir = mkdtempSync(join(tmpdir(), 'bench-export-'));
  const file = join(dir, 'ledger.jsonl');
  try {
    console.log(`load average at start: ${load()}`);
    const pool = new Pool({ connectionString: db.url, max: 2 });
    let started = Date.now();
    await new SyntheticLog(POOLS).write(pool, EVENTS);
    console.log(`log: ${EVENTS} events over ${POOLS} pools generated and inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    started = Date.now();
    while ((await sealChain(pool, { limit: 50_000 })).sealed > 0);
    await pool.query('ANALYZE');
    await pool.end();
    console.log(`  sealed (the API's sealer, 50,000 links a transaction) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const head = await headOf(db.url);

    const exported = await cli(db.url, 'export', '--output', file);
    const size = statSync(file).size;
    console.log(`export: ${exported.lines.at(-1)}`);
    console.log(
      `  wall ${exported.seconds.toFixed(1)} s (process start included), file ${(size / 1024 / 1024).toFixed(0)} MB, ${Math.round(size / EVENTS)} bytes an event`,
    );

    console.log(`load average before the import: ${load()}`);
    const imported = await cli(databaseUrl(target), 'import', file, '--head', `${head.count}:${head.hash}`);
    for (const line of imported.lines.filter((l) => /^(imported|every link)/.test(l))) console.log(`import: ${line}`);
    console.log(`  wall ${imported.seconds.toFixed(1)} s (process start and migrations included)`);

    const copy = await headOf(databaseUrl(target));
    if (copy.count !== head.count || copy.hash !== head.hash)
      throw new Error(`the copy's head ${JSON.stringify(copy)} is not ${JSON.stringify(head)}`);
    const verify = await cli(databaseUrl(target), 'replay', '--verify');
    if (!verify.lines.at(-1)?.endsWith('every read model matches the log'))
      throw new Error(`replay --verify on the copy:\n${verify.lines.join('\n')}`);
    console.log(
      `the copy: head ${copy.count}:${copy.hash.slice(0, 16)}… as the source's; replay --verify: ${verify.lines.at(-2)}; ${verify.lines.at(-1)}`,
    );
    console.log(`load average at the end: ${load()}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dropDatabase(target);
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
