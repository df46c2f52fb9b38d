import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, chownSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

export interface PrivatePostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database: string): string;
  /** `pg_ctl stop -m fast`: every session is ended, as in a restart */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl promote` of a standby, waiting until it accepts writes */
  promote(): Promise<void>;
  /** a streaming standby of this server (pg_basebackup -R), started on a port of its own */
  standby(): Promise<PrivatePostgres>;
  close(): Promise<void>;
}

export interface PrivatePostgresOptions {
  /** server settings (`-c name=value`), e.g. ssl=on */
  settings?: Record<string, string>;
  /** pg_hba.conf lines, checked before the default `trust` ones */
  hba?: string[];
  /** files written into the server's own directory (0600, owned by its user), named in settings as `$DIR/name` */
  files?: Record<string, string>;
}

/** The newest PostgreSQL server binaries installed (Debian layout), or PG_BIN. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql (set PG_BIN)');
  return join('/usr/lib/postgresql', versions[0], 'bin');
}

export const asRoot = () => userInfo().uid === 0;

/** PostgreSQL refuses to run as root: under root, its tools run as the `postgres` operating-system user. */
export function runAsPostgres(tool: string, args: string[]): string {
  const bin = postgresBinDir();
  const [command, argv] = asRoot() ? ['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] : [join(bin, tool), args];
  const result = spawnSync(command, argv, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

/** A temporary directory the postgres user owns (0700), not under a folder it cannot enter. */
export function postgresOwnedDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (asRoot()) chownSync(dir, postgresUid(), postgresGid());
  chmodSync(dir, 0o700);
  return dir;
}

export const postgresUid = () => Number(execFileSync('id', ['-u', 'postgres']).toString());
export const postgresGid = () => Number(execFileSync('id', ['-g', 'postgres']).toString());

function writeOwned(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  if (asRoot()) chownSync(file, postgresUid(), postgresGid());
}

/**
 * A PostgreSQL cluster of the test's own (initdb + pg_ctl on a free port, in a temporary
 * directory), to stop and start at will: never the machine's shared server.
 */
export async function startPrivatePostgres(options: PrivatePostgresOptions = {}): Promise<PrivatePostgres> {
  const dir = postgresOwnedDir('pg-');
  const data = join(dir, 'data');
  runAsPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  for (const [name, content] of Object.entries(options.files ?? {})) writeOwned(join(dir, name), content);
  if (options.hba?.length) {
    const hba = join(data, 'pg_hba.conf');
    writeOwned(hba, `${options.hba.join('\n')}\n${readFileSync(hba, 'utf8')}`);
  }
  // streaming standbys connect as postgres over loopback (initdb's hba trusts it)
  appendFileSync(join(data, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
  return run(dir, data, options.settings ?? {});
}

async function run(dir: string, data: string, settings: Record<string, string>): Promise<PrivatePostgres> {
  const port = await freePort();
  const all = { listen_addresses: '127.0.0.1', unix_socket_directories: dir, max_connections: '200', ...settings };
  const options = [`-p ${port}`, ...Object.entries(all).map(([name, value]) => `-c ${name}=${value.replaceAll('$DIR', dir)}`)].join(' ');
  // pg_ctl -w waits by itself: these are synchronous, behind the promise the interface wants (a failure rejects it)
  const pgCtl = (...args: string[]): Promise<void> => Promise.resolve().then(() => void runAsPostgres('pg_ctl', ['-D', data, ...args]));
  const start = () => pgCtl('-o', options, '-l', join(dir, 'log'), '-w', 'start');
  const stop = () => pgCtl('-m', 'fast', '-w', 'stop');
  await start();
  const server: PrivatePostgres = {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop,
    start,
    promote: () => pgCtl('-w', 'promote'),
    async standby() {
      const standbyDir = postgresOwnedDir('pg-standby-');
      const standbyData = join(standbyDir, 'data');
      runAsPostgres('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-U',
        'postgres',
        '-D',
        standbyData,
        '-R',
        '-X',
        'stream',
        '--no-sync',
        // a fast checkpoint: the default spreads it over minutes
        '--checkpoint=fast',
      ]);
      return run(standbyDir, standbyData, settings);
    },
    async close() {
      await stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}
