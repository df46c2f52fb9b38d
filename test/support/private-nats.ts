import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port';

export interface PrivateNats {
  url: string;
  /** stops the server (its JetStream store stays) */
  stop(): Promise<void>;
  /** starts it again on the same port and store */
  start(): Promise<void>;
  close(): Promise<void>;
}

const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(!!socket.end()));
    socket.on('error', () => resolve(false));
  });

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

/** A NATS server of the suite's own (the shared one must stay up for the others), to take down and bring back. */
export async function startPrivateNats(): Promise<PrivateNats> {
  const binary = natsServerBinary();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'nats-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], { stdio: 'ignore' });
    for (let i = 0; !(await reachable(port)); i++) {
      if (i > 200) throw new Error(`nats-server did not listen on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
