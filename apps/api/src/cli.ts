import { DomainError, ipArgument, NodeAggregate, PoolAggregate, StatefulSetAggregate, upcast } from '@ipledger/domain';
import { runMigrations, verifyChain, verifySnapshots, type ExpectedHead } from '@ipledger/event-store';
import { formatIp } from '@ipledger/ip';
import {
  findCluster,
  ipHistory,
  listClusters,
  listParked,
  rebuildProjections,
  requestUnpark,
  verifyProjections,
} from '@ipledger/projections';
import type { Pool } from 'pg';
import { checkCluster, type CheckReport } from './check/cluster-check';
import { loadConfig } from './config';
import { dataCommand } from './data-folders';
import { openDatabase } from './database';
import { createPgPool } from './infrastructure/pg-pool';
import type { CliStreams } from './backup/cli-streams';
import { exportCommand } from './backup/export-command';
import { importCommand } from './backup/import-command';
import { badHead, parseHead } from './head-argument';
import { MIGRATIONS_DIR } from './migrations-dir';
import { Progress } from './progress';
import { databaseFailure, databaseVariable } from './database-failure';
import { EXIT_CODES } from './start-failure';
import { MAX_LIMIT } from './http/list-query.dto';

/** verify-chain names this many broken links at most (each changed event breaks one) */
const MAX_BROKEN_LINES = 50;

const USAGE = `usage: ipledger <command>   (or npm run cli -- <command>)
  migrate            apply pending database migrations
  replay --verify    rebuild every read model from the log and compare it row by row with the live one, and every
                     stored snapshot with the fold of its stream up to its version (exit 1 on a difference)
  replay --rebuild   rebuild every read model from the log and swap it in for the live one, safely while the API runs
  verify-chain [--head <count>:<hash>]
                     recompute the audit chain from the log and compare it with the stored links and, given
                     a head kept outside the database (GET /v1/audit/head), with that; name the first broken link (exit 1)
  ip-history <ip>    every allocation, release and reservation of an address, oldest first
  check [--cluster <name>] [--json]
                     compare each cluster's allocations with its last complete pod sync (every cluster; --cluster: that
                     one): pods gone, pod IPs no allocation (or another handle) holds, pods holding several addresses,
                     StatefulSet pods outside their range, addresses held for an unreachable node; each with its cluster
                     and evidence (exit 1 when anything is found, 3 when a cluster has no complete pod sync yet: REST
                     only, or its watcher has not run)
  parked             the Kubernetes objects whose message was parked (it kept failing), with why
  unpark <kind>/<key>... | --all
                     have the API apply those parked messages again (kind node, pod, statefulset, ippool, namespace; key name or namespace/name)
  export [--from <position>] [--output <file>]
                     write the event log with its audit chain as JSON lines (stdout without --output), from the event at a position
  import <file|-> [--head <count>:<hash>]
                     load an export into an empty database (migrations first), verifying every link and the head given,
                     then rebuild every read model; refuse the whole file, naming the first bad line (exit 1)
  data               the embedded PostgreSQL's data folders: where, how large, for which checkout, whether that still
                     exists and whether a server runs on it
  data prune         remove the data folders whose checkout is gone (never one a server runs on)`;

/**
 * Operator commands, as the schema owner (IPAM_MIGRATIONS_DATABASE_URL, else DATABASE_URL, else the
 * embedded server in IPAM_DATA_DIR); exit code 1 when a check fails, 2 on bad usage, the others of
 * EXIT_CODES when the database cannot be reached. Only `migrate`, `replay --rebuild` and `import`
 * change the schema or rows; `data prune` removes data folders, and needs no database.
 */
export async function runCli(
  args: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  stdio: CliStreams = process,
): Promise<number> {
  const [command, ...rest] = args;
  if (command === 'export') return exportCommand(rest, out, env, stdio);
  if (command === 'import') return importCommand(rest, out, env, stdio);
  const usage =
    (command === 'migrate' && rest.length === 0) ||
    (command === 'verify-chain' && (rest.length === 0 || (rest.length === 2 && rest[0] === '--head'))) ||
    (command === 'ip-history' && rest.length === 1) ||
    (command === 'replay' && rest.length === 1 && (rest[0] === '--verify' || rest[0] === '--rebuild')) ||
    (command === 'parked' && rest.length === 0) ||
    (command === 'check' && checkOptions(rest) !== null) ||
    (command === 'data' && (rest.length === 0 || rest.join(' ') === 'prune')) ||
    (command === 'unpark' && rest.length > 0 && (rest.join(' ') === '--all' || rest.every((arg) => /^[a-z]+\/./.test(arg))));
  if (!usage) {
    out(USAGE);
    return 2;
  }
  let head: ExpectedHead | undefined;
  if (command === 'verify-chain' && rest.length === 2) {
    head = parseHead(rest[1]);
    if (!head) {
      out(badHead(rest[1]));
      return 2;
    }
  }
  let ip = '';
  if (command === 'ip-history') {
    try {
      ip = formatIp(ipArgument(rest[0]));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      out(err.message);
      return 2;
    }
  }
  if (command === 'data') return dataCommand(rest[0] === 'prune', env, out);
  const database = await openDatabase(env, () => undefined);
  try {
    // a rebuild locks and rewrites tables: the owner's work, not the API's service role's
    const url = loadConfig(database.env).migrationsDatabaseUrl;
    return await run(command, rest, ip, head, url, out).catch((err: unknown) => {
      throw databaseFailure(err, url, databaseVariable(env)) ?? err;
    });
  } finally {
    await database.close();
  }
}

async function run(
  command: string,
  rest: string[],
  ip: string,
  head: ExpectedHead | undefined,
  databaseUrl: string,
  out: (line: string) => void,
): Promise<number> {
  const option = rest[0];
  // read-only commands apply no migrations: they must not change the database they inspect
  if (command === 'migrate' || option === '--rebuild') {
    const applied = await runMigrations(databaseUrl, MIGRATIONS_DIR, out);
    if (command === 'migrate') {
      out(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply');
      return 0;
    }
  }
  const db = createPgPool(databaseUrl, { max: 1 });
  try {
    if (option === '--rebuild') return await rebuild(db, out);
    if (command === 'replay') {
      const started = Date.now();
      const progress = new Progress(out);
      const { events, differences } = await verifyProjections(db, (n, total) => progress.update(n, total, started));
      progress.done();
      for (const d of differences) out(`DIFFERENT ${d.table} (${d.side}): ${JSON.stringify(d.row)}`);
      const snapshots = await verifySnapshots(db, [PoolAggregate, NodeAggregate, StatefulSetAggregate], upcast);
      for (const d of snapshots.differences) out(`DIFFERENT snapshot of ${d.streamId} at version ${d.version}: ${d.reason}`);
      out(
        `${snapshots.snapshots} snapshot(s) checked; ${snapshots.differences.length ? `${snapshots.differences.length} differ from the fold of their stream` : 'every one matches the fold of its stream'}`,
      );
      out(`${events} events replayed; ${differences.length ? `${differences.length} row(s) differ` : 'every read model matches the log'}`);
      return differences.length || snapshots.differences.length ? 1 : 0;
    }
    if (command === 'parked') {
      const parked = await listParked(db);
      for (const p of parked) out(`${p.kind}/${p.key}\t${p.parkedSequence}\t${p.unparkRequested ? 'unpark requested' : p.status}`);
      out(`${parked.length} parked message(s)`);
      return 0;
    }
    if (command === 'unpark') {
      const objects =
        rest[0] === '--all' ? 'all' : rest.map((arg) => ({ kind: arg.slice(0, arg.indexOf('/')), key: arg.slice(arg.indexOf('/') + 1) }));
      const requested = await requestUnpark(db, objects);
      if (requested.length === 0 && (await listParked(db)).length === 0) {
        out('nothing is parked: no message to apply again (ipledger parked lists them)');
        return 0;
      }
      for (const r of requested) out(`${r.kind}/${r.key}: message ${r.parkedSequence} will be applied again`);
      const notParked = objects === 'all' ? [] : objects.filter((o) => !requested.some((r) => r.kind === o.kind && r.key === o.key));
      for (const o of notParked) out(`${o.kind}/${o.key}: not parked (ipledger parked lists what is)`);
      out(`${requested.length} parked message(s) handed back to the API`);
      return notParked.length ? 1 : 0;
    }
    if (command === 'verify-chain') return await checkChain(db, head, out);
    if (command === 'check') return await check(db, checkOptions(rest)!, out);
    // a page at a time, printed as it comes: an address reused a million times is never all in memory
    let page = await ipHistory(db, ip, { limit: MAX_LIMIT });
    if (page.items.length === 0) out(`${ip} has no history: no allocation, release or reservation of it was ever recorded`);
    for (;;) {
      for (const item of page.items) {
        out(
          [
            item.at,
            item.type,
            item.pool,
            item.handle ?? item.statefulSet ?? '-',
            `${item.namespace ?? '-'}/${item.pod ?? '-'}`,
            item.node ?? '-',
            item.actor ?? '-',
          ].join('\t'),
        );
      }
      if (page.continue === null) return 0;
      page = await ipHistory(db, ip, { limit: MAX_LIMIT, continue: page.continue });
    }
  } finally {
    await db.end();
  }
}

interface CheckOptions {
  json: boolean;
  /** the one cluster to check; absent: every cluster */
  cluster?: string;
}

/** `check`'s options in any order, each at most once; null when they are not that. */
function checkOptions(args: string[]): CheckOptions | null {
  const options: CheckOptions = { json: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--json' && !options.json) options.json = true;
    else if (args[i] === '--cluster' && options.cluster === undefined && i + 1 < args.length) options.cluster = args[++i];
    else return null;
  }
  return options;
}

/**
 * check: a line a problem with its cluster and evidence, then each cluster's verdict (or the
 * report as JSON: one cluster's with --cluster, else every cluster's in an array). A cluster
 * without a pod sync (REST only, or its watcher never ran) had its allocations compared with no
 * pod: that is said in words, and exits 3 rather than 1 when nothing else was found.
 */
async function check(db: Pool, options: CheckOptions, out: (line: string) => void): Promise<number> {
  if (options.cluster !== undefined && !(await findCluster(db, options.cluster))) {
    out(`cluster "${options.cluster}" does not exist (GET /v1/clusters lists them)`);
    return 2;
  }
  const reports: CheckReport[] = [];
  for (const cluster of options.cluster !== undefined ? [options.cluster] : await clusterNames(db))
    reports.push(await checkCluster(db, cluster));
  const found = reports.flatMap((report) => report.problems.filter((problem) => problem.kind !== 'no-complete-pod-sync'));
  if (options.json) out(JSON.stringify(options.cluster !== undefined ? reports[0] : reports, null, 2));
  else
    for (const report of reports) {
      const problems = found.filter((problem) => problem.cluster === report.cluster);
      for (const problem of problems)
        out(`${report.cluster}: ${problem.kind}: ${problem.message}\n  evidence: ${JSON.stringify(problem.evidence)}`);
      if (!report.podSync) {
        out(
          `${report.cluster}: no pod sync yet: the Kubernetes consumer has never synced the pods of cluster ${report.cluster} ` +
            '(REST only, NATS_URL unset; or its watcher has not run), so no allocation was compared with a pod',
        );
      }
      const against = report.podSync ? `the pod sync ${report.podSync.syncId} (completed ${report.podSync.completedAt})` : 'no pod sync';
      out(`${report.cluster}: ${problems.length ? `${problems.length} problem(s)` : 'no problem'}, compared with ${against}`);
    }
  if (found.length) return 1;
  return reports.every((report) => report.podSync) ? 0 : EXIT_CODES.noPodSync;
}

/** Every cluster's name, a page at a time. */
async function clusterNames(db: Pool): Promise<string[]> {
  const names: string[] = [];
  for (let next: string | undefined; ; ) {
    const page = await listClusters(db, { limit: MAX_LIMIT, continue: next });
    names.push(...page.items.map((cluster) => cluster.name));
    if (page.continue === null) return names;
    next = page.continue;
  }
}

/** verify-chain: a line a broken link (the first one first), then the verdict. */
async function checkChain(db: Pool, head: ExpectedHead | undefined, out: (line: string) => void): Promise<number> {
  const { events, links, broken } = await verifyChain(db, head);
  for (const { message } of broken.slice(0, MAX_BROKEN_LINES)) out(`BROKEN ${message}`);
  if (broken.length > MAX_BROKEN_LINES) out(`... and ${broken.length - MAX_BROKEN_LINES} more`);
  const unsealed = events > links ? `; ${events - links} newer event(s) not sealed yet` : '';
  if (broken.length) out(`the audit chain is broken: ${broken.length} problem(s) in ${events} events and ${links} links${unsealed}`);
  else if (head) out(`the first ${head.count} events chain to the head ${head.count}:${head.hash}; ${links} links intact${unsealed}`);
  else out(`the audit chain is intact: ${links} links over ${events} events${unsealed}`);
  return broken.length ? 1 : 0;
}

/** replay --rebuild: a line a read model, then one with the events, the time, the rate and the peak memory. */
async function rebuild(db: Pool, out: (line: string) => void): Promise<number> {
  const started = Date.now();
  const progress = new Progress(out);
  const { events, appended, tables } = await rebuildProjections(db, (n, total) => progress.update(n, total, started));
  progress.done();
  const seconds = (Date.now() - started) / 1000;
  for (const t of tables) out(`${t.table}: ${t.rows} rows (${t.deleted} deleted, ${t.inserted} inserted)`);
  const replayed = events + appended;
  out(
    `${replayed} events replayed (${appended} appended during the rebuild) in ${seconds.toFixed(2)} s, ` +
      `${Math.round(replayed / seconds)} events/s, peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; every read model rebuilt`,
  );
  return 0;
}
