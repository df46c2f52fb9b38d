import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(__dirname, '../..');
const ENTRY = join(ROOT, 'dist/watcher/main.js');

export interface WatcherProcess {
  /** the health server: /healthz, /readyz, /metrics */
  url: string;
  /** the watcher's process id (a benchmark reads its resident memory) */
  pid: number;
  /** every line it printed, for assertions and for failures to explain themselves */
  lines: string[];
  /** resolves once a line matching the pattern has been printed (from `from` on) */
  printed(pattern: RegExp, from?: number, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait */
  stop(): Promise<void>;
  /** SIGKILL and wait: no chance to flush anything */
  kill(): Promise<void>;
}

/**
 * The watcher as its own OS process, from dist/ (`npm run build` first), as it runs in a pod.
 * `IPAM_WATCHER_NODE_ARGS` (space-separated) goes to node before the entry: flags NODE_OPTIONS
 * refuses, such as `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it in a benchmark.
 */
export async function startWatcherProcess(env: NodeJS.ProcessEnv): Promise<WatcherProcess> {
  const nodeArgs = (process.env.IPAM_WATCHER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, ENTRY], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  // the watcher logs JSON lines (IPAM_LOG_FORMAT=json): tests read their messages
  const message = (line: string) => {
    try {
      return (JSON.parse(line) as { message: string }).message;
    } catch {
      return line;
    }
  };
  for (const stream of [child.stdout!, child.stderr!]) createInterface({ input: stream }).on('line', (line) => lines.push(message(line)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const printed = async (pattern: RegExp, from = 0, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!lines.slice(from).some((line) => pattern.test(line))) {
      if (child.exitCode !== null) throw new Error(`the watcher exited with ${child.exitCode} (built?):\n${lines.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`the watcher did not print ${pattern}:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await printed(/health and metrics on /);
  const url = /health and metrics on (\S+)/.exec(lines.find((line) => line.includes('health and metrics on '))!)![1];
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return { url, pid: child.pid!, lines, printed, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL') };
}
