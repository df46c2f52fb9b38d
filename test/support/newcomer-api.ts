import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { call } from './api-process';

/** pids of the processes whose command line names `text` (the data directory of an embedded server) */
export function processesNaming(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** The environment of a newcomer's shell: nothing of ipledger's configured, but for `settings` (the ports, say). */
export function newcomerEnv(settings: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'NATS_URL', 'IPAM_DATA_DIR', 'IPAM_KUBERNETES_CONSUMER', 'IPAM_TOKENS', 'HOST']) delete env[name];
  return { ...env, ...settings };
}

export interface NewcomerApi {
  base: string;
  /** every line it printed, stdout and stderr */
  lines: string[];
  /** what /readyz answered */
  ready: unknown;
  /** sends the signal and waits for the exit */
  signal(name: NodeJS.Signals): Promise<void>;
}

/**
 * What `npm start` runs once its `prestart` found dist/ up to date (`node dist/api/main.js` in
 * `cwd`), on the PORT `env` names, resolved once /readyz answers 200. A start that fails is stopped,
 * and its lines are in the error.
 */
export async function startNewcomerApi(cwd: string, env: NodeJS.ProcessEnv): Promise<NewcomerApi> {
  const child: ChildProcess = spawn(process.execPath, ['dist/api/main.js'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const signal = async (name: NodeJS.Signals) => {
    if (!alive()) return;
    const exited = once(child, 'exit');
    child.kill(name);
    await exited;
  };
  const base = `http://127.0.0.1:${env.PORT}`;
  for (let i = 0; ; i++) {
    if (!alive()) throw new Error(`the API exited with ${child.exitCode ?? child.signalCode}:\n${lines.join('\n')}`);
    if (i > 1200) {
      await signal('SIGTERM');
      throw new Error(`the API was not ready within 120 s:\n${lines.join('\n')}`);
    }
    const ready = await call(base, 'GET', '/readyz').catch(() => null);
    if (ready?.status === 200) return { base, lines, ready: ready.body, signal };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
