import { once } from 'node:events';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { ProxyRequest, TestProxy } from './connect-proxy';

/**
 * A SOCKS5 proxy on a loopback port (RFC 1928: no authentication, CONNECT only) that records each
 * target as the client named it (`host:port`, a name when the client left resolving to the proxy).
 * `hosts` maps names to where it really connects. Its `url` is `socks5://127.0.0.1:<port>`.
 */
export async function startSocksProxy(options: { hosts?: Record<string, string> } = {}): Promise<TestProxy> {
  const requests: ProxyRequest[] = [];
  const sockets = new Set<Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    let greeted = false;
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!greeted) {
        // VER NMETHODS METHODS...: choose "no authentication"
        if (buffered.length < 2 || buffered.length < 2 + buffered[1]) return;
        buffered = buffered.subarray(2 + buffered[1]);
        greeted = true;
        client.write(Buffer.from([5, 0]));
      }
      const request = parseConnect(buffered);
      if (!request) return;
      client.off('data', onData);
      requests.push({ method: 'CONNECT', target: `${request.host}:${request.port}` });
      const upstream = net.connect(request.port, options.hosts?.[request.host] ?? request.host, () => {
        // succeeded, bound address 0.0.0.0:0
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
        upstream.write(buffered.subarray(request.length));
        upstream.pipe(client).pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `socks5://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** VER CMD RSV ATYP DST.ADDR DST.PORT, once it has all arrived. */
function parseConnect(bytes: Buffer): { host: string; port: number; length: number } | undefined {
  if (bytes.length < 5) return undefined;
  const type = bytes[3];
  const addressLength = type === 1 ? 4 : type === 4 ? 16 : 1 + bytes[4];
  const length = 4 + addressLength + 2;
  if (bytes.length < length) return undefined;
  const address = bytes.subarray(4, 4 + addressLength);
  let host: string;
  if (type === 1) host = [...address].join('.');
  else if (type === 4) host = (address.toString('hex').match(/.{4}/g) ?? []).join(':');
  else host = address.subarray(1).toString();
  return { host, port: bytes.readUInt16BE(4 + addressLength), length };
}
