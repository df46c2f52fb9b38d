import { connect, createServer } from 'node:net';

/** A loopback port nobody listens on now (the OS picks it), for a server a test starts. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const reachable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => resolve(!!socket.end()));
    socket.on('error', () => resolve(false));
  });

/** Resolves once something listens on the port; throws after `timeoutMs`. */
export async function waitForPort(port: number, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await reachable(port))) {
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
