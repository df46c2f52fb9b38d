import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { PostgresUser } from './postgres-user';

/** Recent output of a server tool, to name the cause when it fails. */
export class ToolOutput {
  private readonly recent: string[] = [];

  constructor(private readonly log: (line: string) => void) {}

  add(chunk: Buffer | string): void {
    for (const line of String(chunk).split('\n').filter(Boolean)) {
      this.recent.push(line);
      if (this.recent.length > 40) this.recent.shift();
      if (/\b(WARNING|PANIC):/.test(line)) this.log(`postgres: ${line}`);
    }
  }

  /** whether a recent line holds `text` (the messages are in English: the tools run with LC_MESSAGES=C) */
  says(text: string): boolean {
    return this.recent.some((line) => line.includes(text));
  }

  /** the line that says why: PostgreSQL's FATAL or ERROR line when there is one, else the last */
  cause(): string {
    const reason = this.recent.find((line) => /\b(FATAL|ERROR|PANIC):/.test(line)) ?? this.recent[this.recent.length - 1];
    return reason?.replace(/^.*?\b(FATAL|ERROR|PANIC):\s*/, '') ?? 'no output';
  }
}

/** English messages, whatever the machine's locale: "ready to accept connections" is what start waits for */
const environment = (): NodeJS.ProcessEnv => ({ ...process.env, LC_MESSAGES: 'C', LC_ALL: undefined });

/** spawn as `user` (or as this process's user); a spawn failure (EACCES, ENOENT) rejects instead of an unhandled 'error' event */
function run(bin: string, tool: string, args: string[], user: PostgresUser | null, output: ToolOutput): ChildProcess {
  const child = spawn(join(bin, 'bin', tool), args, {
    env: environment(),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(user && { uid: user.uid, gid: user.gid }),
  });
  child.stdout.on('data', (chunk: Buffer) => output.add(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.add(chunk));
  return child;
}

const spawnFailure = (path: string, user: PostgresUser | null, err: NodeJS.ErrnoException) =>
  new Error(`cannot run ${path}${user ? ' as the postgres user' : ''} (${err.code ?? err.message})`, { cause: err });

/** initdb of a new cluster, its superuser `postgres` with the password in `passwordFile` (readable by `user`) */
export function initdb(bin: string, cluster: string, passwordFile: string, user: PostgresUser | null, output: ToolOutput): Promise<void> {
  const args = [`--pgdata=${cluster}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${passwordFile}`];
  const child = run(bin, 'initdb', [...args, '--encoding=UTF8', '--lc-messages=C', '--no-instructions'], user, output);
  return new Promise((resolve, reject) => {
    child.on('error', (err) => reject(spawnFailure(join(bin, 'bin', 'initdb'), user, err)));
    child.on('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`initdb failed (${signal ?? `exit ${code}`}): ${output.cause()}`)),
    );
  });
}

export interface PostgresProcess {
  /** fast shutdown (SIGINT): sessions end, the data stays consistent */
  stop(): Promise<void>;
  /** a last resort for the process's 'exit' event, where nothing can be awaited */
  stopNow(): void;
}

/** `postgres -D cluster -p port ...flags`, once it accepts connections */
export function startPostgres(
  bin: string,
  cluster: string,
  port: number,
  flags: string[],
  user: PostgresUser | null,
  output: ToolOutput,
): Promise<PostgresProcess> {
  const child = run(bin, 'postgres', ['-D', cluster, '-p', String(port), ...flags], user, output);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const handle: PostgresProcess = {
    async stop() {
      if (running()) child.kill('SIGINT');
      await exited;
    },
    stopNow() {
      if (running()) child.kill('SIGINT');
    },
  };
  return new Promise((resolve, reject) => {
    const ready = (chunk: Buffer) => {
      if (!String(chunk).includes('database system is ready to accept connections')) return;
      child.stderr!.off('data', ready);
      child.off('close', early);
      resolve(handle);
    };
    const early = (code: number | null, signal: string | null) =>
      reject(new Error(`postgres exited (${signal ?? `exit ${code}`}): ${output.cause()}`));
    child.on('error', (err) => reject(spawnFailure(join(bin, 'bin', 'postgres'), user, err)));
    child.stderr!.on('data', ready);
    child.once('close', early);
  });
}
