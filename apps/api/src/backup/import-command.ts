import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { NodeAggregate, PoolAggregate, StatefulSetAggregate, upcast } from '@ipledger/domain';
import {
  ImportRefusedError,
  importLog,
  migrationFiles,
  readOtherWriters,
  runMigrations,
  takeSnapshots,
  type ExpectedHead,
} from '@ipledger/event-store';
import { rebuildInTransaction } from '@ipledger/projections';
import type { PoolClient } from 'pg';
import { loadConfig } from '../config';
import { openDatabase } from '../database';
import { badHead, parseHead } from '../head-argument';
import { createPgPool } from '../infrastructure/pg-pool';
import { MIGRATIONS_DIR } from '../migrations-dir';
import { Progress } from '../progress';
import type { CliStreams } from './cli-streams';
import { commandOptions } from './command-options';

const USAGE = 'usage: ipledger import <file|-> [--head <count>:<hash>]';

/**
 * `ipledger import`: an export (`-`: stdin) into an empty database, as its owner, in ONE transaction:
 * the migrations first (each its own, as `migrate`), then the log with every link recomputed and
 * checked (libs/event-store/src/import-log.ts), every read model rebuilt (replay --rebuild's bulk
 * path) and the snapshots long streams need. A refusal or any failure rolls it all back: the
 * database holds no event, and the import can be run again.
 */
export async function importCommand(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv,
  stdio: CliStreams,
): Promise<number> {
  const parsed = commandOptions(args, ['--head']);
  if (typeof parsed === 'string' || parsed.positional.length !== 1) {
    out(`${typeof parsed === 'string' ? parsed : 'name one file, or - for stdin'}\n${USAGE}`);
    return 2;
  }
  const [file] = parsed.positional;
  const headText = parsed.options['--head'];
  const head = headText === undefined ? undefined : parseHead(headText);
  if (headText !== undefined && !head) {
    out(badHead(headText));
    return 2;
  }
  if (file !== '-') {
    try {
      await access(file);
    } catch (err) {
      out(`cannot read ${file}: ${(err as Error).message}`);
      return 2;
    }
  }
  const database = await openDatabase(env, () => undefined);
  try {
    const url = loadConfig(database.env).migrationsDatabaseUrl;
    await runMigrations(url, MIGRATIONS_DIR, out);
    const db = createPgPool(url, { max: 1 });
    const client = await db.connect();
    try {
      return await load(client, file === '-' ? stdio.stdin : createReadStream(file), head, out);
    } finally {
      client.release();
      await db.end();
    }
  } finally {
    await database.close();
  }
}

async function load(
  client: PoolClient,
  input: NodeJS.ReadableStream,
  head: ExpectedHead | undefined,
  out: (line: string) => void,
): Promise<number> {
  const started = Date.now();
  try {
    await client.query('begin');
    await refuseOtherWriters(client);
    const progress = new Progress(out);
    const imported = await importLog(client, linesOf(input), {
      head,
      knownSchemas: await migrationFiles(MIGRATIONS_DIR),
      onProgress: (n, total) => progress.update(n, total, started),
    });
    progress.done();
    const loaded = Date.now();
    const rebuilt = await rebuildInTransaction(client);
    const projected = Date.now();
    const snapshots = await takeSnapshots(client, [PoolAggregate, NodeAggregate, StatefulSetAggregate], upcast);
    const snapshotted = Date.now();
    // a session that took a transaction id meanwhile may append below the imported ones: not after this commit
    await refuseOtherWriters(client);
    await client.query('commit');
    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const count = imported.head.count;
    for (const t of rebuilt.tables) out(`${t.table}: ${t.rows} rows`);
    out(
      `imported ${count} events in ${seconds(Date.now() - started)}, ${Math.round(count / Math.max((Date.now() - started) / 1000, 0.001))} events/s ` +
        `(load and verify ${seconds(loaded - started)}, read models ${seconds(projected - loaded)}, ` +
        `${snapshots} snapshot(s) ${seconds(snapshotted - projected)}, commit ${seconds(Date.now() - snapshotted)}), ` +
        `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB`,
    );
    out(
      `every link verified${head ? ` and the --head ${head.count}:${head.hash}` : ''}; the chain is sealed to ${count}:${imported.head.hash}`,
    );
    return 0;
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    if (!(err instanceof ImportRefusedError)) throw err;
    out(`REFUSED ${err.message}`);
    out('nothing was imported: the database is as it was');
    return 1;
  }
}

/** The input's lines, read from when the first is asked for: readline drops the lines it reads before anyone iterates. */
async function* linesOf(input: NodeJS.ReadableStream): AsyncGenerator<string> {
  yield* createInterface({ input, crlfDelay: Infinity });
}

async function refuseOtherWriters(client: PoolClient): Promise<void> {
  const writers = await readOtherWriters(client);
  if (writers.length === 0) return;
  throw new ImportRefusedError(
    null,
    `${writers.length} other session(s) are writing to this database (${writers.map((w) => `pid ${w.pid} ${w.application || '?'}`).join(', ')}): ` +
      'stop the API (and so its Kubernetes consumer) before an import',
  );
}
