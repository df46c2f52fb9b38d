/**
 * npm run bench:replay — replay --rebuild over a log of BENCH_EVENTS (default 1,000,000) events:
 * events/s against the 200,000 target, and the rebuilding process's peak RSS. The log is a busy
 * cluster's history decided by the real aggregates (test/support/synthetic-log.ts) and inserted
 * in bulk (the hash-chain trigger links every row). The built CLI runs as its own process, as an
 * operator runs it: the first rebuild fills the empty read models, the next BENCH_RUNS (default 3)
 * rebuild over live ones; replay --verify must then find no difference.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { SyntheticLog } from '../test/support/synthetic-log';
import { freshDatabase, median } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const POOLS = Number(process.env.BENCH_POOLS ?? 2000);
const TARGET = 200_000;
const CLI = join(__dirname, '../dist/cli.js');
const SUMMARY = /^(\d+) events replayed \((\d+) appended during the rebuild\) in ([\d.]+) s, (\d+) events\/s, peak RSS (\d+) MB/;

async function cli(url: string, ...args: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)('node', [CLI, ...args], { env: { ...process.env, DATABASE_URL: url } });
  return stdout.trim().split('\n');
}

async function rebuild(url: string): Promise<{ rate: number; seconds: number; rss: number; lines: string[] }> {
  const lines = await cli(url, 'replay', '--rebuild');
  const match = SUMMARY.exec(lines.at(-1) ?? '');
  if (!match) throw new Error(`unexpected replay --rebuild output:\n${lines.join('\n')}`);
  return { seconds: Number(match[3]), rate: Number(match[4]), rss: Number(match[5]), lines };
}

async function main(): Promise<void> {
  const db = await freshDatabase('replay');
  try {
    const pool = new Pool({ connectionString: db.url, max: 2 });
    const started = Date.now();
    await new SyntheticLog(POOLS).write(pool, EVENTS);
    const { rows } = await pool.query('SELECT type, count(*)::int AS n FROM events GROUP BY type ORDER BY n DESC');
    await pool.end();
    console.log(`log: ${EVENTS} events over ${POOLS} pools generated and inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    console.log(`  ${rows.map((r) => `${r.type} ${r.n}`).join(', ')}`);

    const first = await rebuild(db.url);
    console.log(`first rebuild, into empty read models: ${first.seconds.toFixed(2)} s, ${first.rate} events/s, peak RSS ${first.rss} MB`);
    for (const line of first.lines.filter((l) => /^\w+: \d+ rows/.test(l))) console.log(`  ${line}`);
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await rebuild(db.url));

    const verify = await cli(db.url, 'replay', '--verify');
    if (!verify.at(-1)?.endsWith('every read model matches the log'))
      throw new Error(`replay --verify found differences:\n${verify.join('\n')}`);

    const rate = median(runs.map((r) => r.rate));
    console.log(`replay --rebuild over live read models (${RUNS} runs): ${runs.map((r) => `${r.seconds.toFixed(2)} s`).join(', ')}`);
    console.log(`  median ${rate} events/s, ratio to the ${TARGET} target ${(rate / TARGET).toFixed(2)}`);
    console.log(`  peak RSS ${Math.max(...runs.map((r) => r.rss))} MB (the CLI process, largest of the runs)`);
    console.log(`replay --verify afterwards: ${verify.at(-1)}`);
  } finally {
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
