import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort, waitForPort } from './free-port';

export interface PrivateNats {
  url: string;
  /** stops the server (its JetStream store stays) */
  stop(): Promise<void>;
  /** SIGKILL: no chance to flush or say goodbye to the cluster */
  kill(): Promise<void>;
  /** starts it again on the same port and store */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `nats-server` from PATH (Debian puts it in /usr/sbin), or an error that says what to install. */
export function natsServerBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'].filter(Boolean);
  for (const dir of dirs) {
    try {
      accessSync(join(dir, 'nats-server'), constants.X_OK);
      return join(dir, 'nats-server');
    } catch {
      // not in this one
    }
  }
  throw new Error(
    'the tests need nats-server (NATS with JetStream) and it is not on PATH: install the Debian package `nats-server` ' +
      '(apt-get install nats-server), or set TEST_NATS_URL to a running server with JetStream',
  );
}

/** One nats-server with JetStream on a free loopback port and a store of its own; `extra` arguments join it to a cluster. */
async function natsServer(extra: (port: number) => string[] = () => []): Promise<PrivateNats> {
  const binary = natsServerBinary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nats-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, ...extra(port)], { stdio: 'ignore' });
    await waitForPort(port, 'nats-server');
  };
  const signal = async (name: NodeJS.Signals) => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill(name);
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    start,
    async close() {
      await signal('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A NATS server of the suite's own (the shared one must stay up for the others), to take down and
 * bring back; `args` are more nats-server options (`--tls --tlscert ...`, `-c <config file>`).
 */
export const startPrivateNats = (args: string[] = []): Promise<PrivateNats> => natsServer(() => args);

export interface NatsCluster {
  /** every node's client URL, comma-separated (NATS_URL) */
  url: string;
  nodes: PrivateNats[];
  close(): Promise<void>;
}

/** `size` private nats-servers routed to each other as one JetStream cluster (replicated streams need 3). */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const routes = await Promise.all(Array.from({ length: size }, () => freePort()));
  const name = `chaos-${process.pid}-${routes[0]}`;
  const nodes = await Promise.all(
    routes.map((route, i) =>
      natsServer(() => [
        '--server_name',
        `${name}-${i}`,
        '--cluster_name',
        name,
        '--cluster',
        `nats://127.0.0.1:${route}`,
        '--routes',
        routes
          .filter((other) => other !== route)
          .map((other) => `nats://127.0.0.1:${other}`)
          .join(','),
      ]),
    ),
  );
  return {
    url: nodes.map((node) => node.url).join(','),
    nodes,
    close: async () => {
      await Promise.all(nodes.map((node) => node.close()));
    },
  };
}
