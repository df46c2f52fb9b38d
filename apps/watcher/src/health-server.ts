import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface HealthChecks {
  /** every reflector has listed once and NATS answers */
  ready(): Promise<{ ready: boolean; checks: Record<string, string> }>;
  registry: Registry;
}

/** Probes and metrics for the watcher's pod: /healthz (process up), /readyz, /metrics. */
export async function startHealthServer(checks: HealthChecks, port: number, host: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: string, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const route = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return reply(405, JSON.stringify({ code: 'METHOD_NOT_ALLOWED', message: 'only GET is served' }));
    if (route === '/healthz') return reply(200, JSON.stringify({ status: 'ok' }));
    if (route === '/readyz') {
      return void checks.ready().then(
        ({ ready, checks: detail }) => reply(ready ? 200 : 503, JSON.stringify({ status: ready ? 'ready' : 'not ready', checks: detail })),
        (err: Error) => reply(503, JSON.stringify({ status: 'not ready', checks: { error: err.message } })),
      );
    }
    if (route === '/metrics') {
      return void checks.registry.metrics().then(
        (text) => reply(200, text, checks.registry.contentType),
        (err: Error) => reply(500, JSON.stringify({ code: 'INTERNAL', message: err.message })),
      );
    }
    reply(404, JSON.stringify({ code: 'NOT_FOUND', message: `${route} is not served here` }));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  const address = server.address() as AddressInfo;
  return { server, url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}` };
}
