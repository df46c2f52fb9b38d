import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort, waitForPort } from './free-port';
import { asRoot, postgresBinDir, postgresGid, postgresOwnedDir, postgresUid } from './private-postgres';

export interface PatroniMember {
  /** Patroni's member name (m1, m2, ...) */
  name: string;
  pgPort: number;
  /** postgres://postgres@127.0.0.1:<its port>/<database>: this member alone */
  url(database: string): string;
  /** every line its Patroni printed (a rejoin's `running pg_rewind` shows there) */
  lines: string[];
  /** the running postmaster's pid (from postmaster.pid), or null when none runs */
  postmasterPid(): number | null;
}

/** A member as Patroni's REST API (`GET /cluster`) reports it. */
export interface MemberState {
  name: string;
  role: string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

export interface PatroniCluster {
  members: PatroniMember[];
  /** every member in a host list with target_session_attrs=read-write, as an API in front of Patroni is configured */
  url(database: string): string;
  /** the members as the cluster itself sees them (any reachable member's REST API answers) */
  state(): Promise<MemberState[]>;
  /** the member holding the leader lock with PostgreSQL running; waits for one */
  leader(timeoutMs?: number): Promise<PatroniMember>;
  /** waits until `name` runs as `role`: `sync_standby` in synchronous mode, else `replica` */
  replicating(name: string, role: 'sync_standby' | 'replica', timeoutMs?: number): Promise<void>;
  /** changes the cluster's dynamic configuration (Patroni's PATCH /config), e.g. synchronous_mode */
  configure(dcs: Record<string, unknown>): Promise<void>;
  /** ends every process it started, by their own pids, and removes every directory */
  close(): Promise<void>;
}

export interface PatroniClusterOptions {
  /** Patroni's synchronous_mode */
  synchronous: boolean;
  /** more of the DCS's dynamic configuration (e.g. maximum_lag_on_failover) */
  dcs?: Record<string, unknown>;
  members?: number;
}

/** One call to a Patroni REST API: its status and JSON body. */
function rest(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, timeout: 2000, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within 2 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Lines of a child's stdout and stderr, kept for the test. */
function collect(child: ChildProcess): string[] {
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream! }).on('line', (line) => lines.push(line));
  return lines;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/**
 * SIGKILL to a Patroni and its process group (it was started as the group's leader): its helpers
 * (pg_rewind, pg_basebackup, pg_ctl) go with it. Its postmaster has a session of its own.
 */
async function killPatroni(child: ChildProcess): Promise<void> {
  if (!running(child)) return;
  const exited = once(child, 'exit');
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

/** The postmaster running on this data directory, by postmaster.pid, only if that pid runs on it (never a reused pid). */
function postmasterOf(dataDir: string): number | null {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const cmdline = pid > 0 && existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
  return cmdline.includes(dataDir) ? pid : null;
}

/** Immediate shutdown (SIGQUIT: the postmaster ends its own children), SIGKILL if it lingers. */
async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = postmasterOf(dataDir);
  if (!pid) return;
  process.kill(pid, 'SIGQUIT');
  const deadline = Date.now() + 10_000;
  while (postmasterOf(dataDir) === pid) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * A Patroni cluster of the test's own on loopback: one etcd (the DCS) and `members` PostgreSQL
 * servers (Debian's binaries, run as the `postgres` user under root), every port free and picked
 * here, every directory private. Patroni settings the chaos scenarios need:
 * - `primary_start_timeout: 0`: a leader whose postmaster died fails over at once (otherwise Patroni
 *   restarts it in place for up to 300 s);
 * - `use_pg_rewind` with `wal_log_hints`: the old primary rejoins as a standby of the new one;
 * - `loop_wait: 1`: the cluster notices within a second (a test's cluster, not a production value).
 */
export async function startPatroniCluster(options: PatroniClusterOptions): Promise<PatroniCluster> {
  try {
    return await startOnce(options);
  } catch (err) {
    // a bootstrap that stalls before any member leads (seen once in CI: "bootstrap in progress" for
    // 120 s) is this harness's, not what a scenario tests: one fresh cluster more, then it stands
    process.stderr.write(`the Patroni cluster did not come up, starting a fresh one: ${(err as Error).message}\n`);
    return startOnce(options);
  }
}

/** Patroni's once-a-second status lines: left out of a failure's tail, where they would hide its cause. */
const ROUTINE = /Lock owner: |bootstrap in progress|not healthy enough for leader race|waiting for leader to bootstrap|no action\. I am/;

async function startOnce(options: PatroniClusterOptions): Promise<PatroniCluster> {
  const base = postgresOwnedDir('patroni-');
  const etcdDir = mkdtempSync(join(tmpdir(), 'etcd-'));
  const patronis: ChildProcess[] = [];
  const dataDirs: string[] = [];
  const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
  const etcd = spawn(
    'etcd',
    [
      ...['--name', 'dcs', '--data-dir', join(etcdDir, 'data')],
      ...['--listen-client-urls', `http://127.0.0.1:${etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${etcdClient}`],
      ...['--listen-peer-urls', `http://127.0.0.1:${etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${etcdPeer}`],
      ...['--initial-cluster', `dcs=http://127.0.0.1:${etcdPeer}`, '--log-level', 'error'],
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // a test run that ends abruptly (an uncaught error) takes nothing of this cluster's with it
  const onExit = () => {
    if (running(etcd)) etcd.kill('SIGKILL');
    for (const child of patronis) if (running(child)) process.kill(-child.pid!, 'SIGKILL');
    for (const dataDir of dataDirs) {
      const pid = postmasterOf(dataDir);
      if (pid) process.kill(pid, 'SIGKILL');
    }
  };
  process.once('exit', onExit);
  const etcdLines = collect(etcd);

  const restPorts: number[] = [];
  const members: PatroniMember[] = [];
  // no graceful stop: a stopping Patroni checkpoints and hands its lock over for many seconds, and nothing here is kept
  const close = async () => {
    await Promise.all(patronis.map(killPatroni));
    await Promise.all(dataDirs.map(stopPostmaster));
    if (running(etcd)) {
      const exited = once(etcd, 'exit');
      etcd.kill('SIGTERM');
      await exited;
    }
    process.removeListener('exit', onExit);
    rmSync(base, { recursive: true, force: true });
    rmSync(etcdDir, { recursive: true, force: true });
  };
  const state = async (): Promise<MemberState[]> => {
    for (const port of restPorts) {
      const cluster = await rest(`http://127.0.0.1:${port}/cluster`).catch(() => null);
      if (cluster?.body?.members) return cluster.body.members as MemberState[];
    }
    throw new Error('no Patroni REST API answers');
  };
  const cluster: PatroniCluster = {
    members,
    url: (database) =>
      `postgres://postgres@${members.map((m) => `127.0.0.1:${m.pgPort}`).join(',')}/${database}?target_session_attrs=read-write&connect_timeout=2&sslmode=disable`,
    state,
    leader: (timeoutMs = 60_000) =>
      until(
        'a leader',
        async () => {
          const leader = (await state()).find((m) => m.role === 'leader' && m.state === 'running');
          return members.find((m) => m.name === leader?.name);
        },
        timeoutMs,
      ),
    replicating: async (name, role, timeoutMs = 90_000) => {
      await until(
        `${name} a running ${role}`,
        async () => ((await state()).some((m) => m.name === name && m.role === role && m.state === 'running') ? true : undefined),
        timeoutMs,
      );
    },
    async configure(dcs) {
      const answer = await rest(`http://127.0.0.1:${restPorts[0]}/config`, 'PATCH', dcs);
      if (answer.status !== 200) throw new Error(`PATCH /config: ${answer.status} ${JSON.stringify(answer.body)}`);
    },
    close,
  };
  try {
    await waitForPort(etcdClient, `etcd (${etcdLines.join(' ')})`);
    for (let i = 1; i <= (options.members ?? 2); i++) {
      const name = `m${i}`;
      const dir = join(base, name);
      mkdirSync(dir, { mode: 0o700 });
      if (asRoot()) chownSync(dir, postgresUid(), postgresGid());
      const [pgPort, restPort] = [await freePort(), await freePort()];
      restPorts.push(restPort);
      const dataDir = join(dir, 'data');
      dataDirs.push(dataDir);
      const config = {
        scope: 'chaos',
        name,
        log: { level: 'INFO' },
        restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
        etcd3: { hosts: `127.0.0.1:${etcdClient}` },
        bootstrap: {
          dcs: {
            ttl: 20,
            loop_wait: 1,
            retry_timeout: 5,
            synchronous_mode: options.synchronous,
            primary_start_timeout: 0,
            postgresql: {
              use_pg_rewind: true,
              parameters: { wal_log_hints: 'on', max_connections: 200, max_wal_senders: 5, max_replication_slots: 5 },
            },
            ...options.dcs,
          },
          initdb: [{ encoding: 'UTF8' }, { auth: 'trust' }],
        },
        postgresql: {
          listen: `127.0.0.1:${pgPort}`,
          connect_address: `127.0.0.1:${pgPort}`,
          data_dir: dataDir,
          bin_dir: postgresBinDir(),
          pgpass: join(dir, 'pgpass'),
          authentication: { superuser: { username: 'postgres' }, replication: { username: 'postgres' }, rewind: { username: 'postgres' } },
          parameters: { unix_socket_directories: dir },
          pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
          // a new member copies the leader at once, not after a checkpoint spread over minutes
          basebackup: [{ checkpoint: 'fast' }],
        },
      };
      // JSON is YAML: Patroni reads it as its configuration file
      const configFile = join(dir, 'patroni.yml');
      writeFileSync(configFile, JSON.stringify(config, null, 2), { mode: 0o600 });
      const owner = asRoot() ? { uid: postgresUid(), gid: postgresGid() } : {};
      if (asRoot()) chownSync(configFile, postgresUid(), postgresGid());
      // the leader of a process group of its own: its helpers can be ended with it. It starts in
      // its own folder: Patroni's multiprocessing children chdir to its working directory, which as
      // `postgres` they cannot enter when it is a 0700 checkout (the bootstrap then stalled)
      const patroni = spawn('patroni', [configFile], {
        ...owner,
        cwd: dir,
        detached: true,
        env: { ...process.env, HOME: dir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      patronis.push(patroni);
      members.push({
        name,
        pgPort,
        url: (database) => `postgres://postgres@127.0.0.1:${pgPort}/${database}?sslmode=disable`,
        lines: collect(patroni),
        postmasterPid: () => postmasterOf(dataDir),
      });
    }
    // all start at once: one wins the initialize key and bootstraps, the others wait for it and copy it
    const leader = await cluster.leader(90_000);
    const role = options.synchronous ? 'sync_standby' : 'replica';
    for (const member of members) if (member !== leader) await cluster.replicating(member.name, role);
  } catch (err) {
    const tail = members.flatMap((member) =>
      member.lines
        .filter((line) => !ROUTINE.test(line))
        .slice(-20)
        .map((line) => `${member.name}: ${line}`),
    );
    await close();
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${tail.join('\n')}`, { cause: err });
  }
  return cluster;
}
