import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/** What a test proxy was asked for: `CONNECT host:port`, or any other request, which it refuses. */
export interface ProxyRequest {
  method: string;
  target: string;
  proxyAuthorization?: string;
}

export interface TestProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: ProxyRequest[];
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** where the proxy really connects for a name, so that a test can name a server only the proxy reaches */
  hosts?: Record<string, string>;
  /** `user:password` the proxy demands (407 otherwise) */
  credentials?: string;
}

/**
 * A forward proxy on a loopback port that tunnels with HTTP CONNECT, as hpagent asks for http and
 * https servers alike; anything else gets 405. Records every request with its Proxy-Authorization.
 */
export async function startConnectProxy(options: ConnectProxyOptions = {}): Promise<TestProxy> {
  const requests: ProxyRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method ?? '', target: request.url ?? '', proxyAuthorization: request.headers['proxy-authorization'] });
    response.writeHead(405, { allow: 'CONNECT' }).end();
  });
  server.on('connect', (request: http.IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    const proxyAuthorization = request.headers['proxy-authorization'];
    requests.push({ method: 'CONNECT', target, proxyAuthorization });
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (options.credentials && proxyAuthorization !== `Basic ${Buffer.from(options.credentials).toString('base64')}`) {
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
    }
    const { hostname, port } = new URL(`http://${target}`);
    const upstream = net.connect(Number(port), options.hosts?.[hostname] ?? hostname, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
