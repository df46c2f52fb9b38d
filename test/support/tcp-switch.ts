import { once } from 'node:events';
import net, { type AddressInfo, type Socket } from 'node:net';

export interface TcpSwitch {
  /** the switch's own `127.0.0.1:<port>`, to put in a URL instead of the target's */
  hostPort: string;
  /** the target goes away: open connections are reset and new ones refused */
  cut(): Promise<void>;
}

/** A TCP forwarder to `target` (host:port) that a test can cut, as a database failing over or a network partition does. */
export async function tcpSwitch(target: { host: string; port: number }): Promise<TcpSwitch> {
  const sockets = new Set<Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    upstream.pipe(client).pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    hostPort: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    async cut() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    },
  };
}
