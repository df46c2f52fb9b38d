import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlugin } from './plugin';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/**
 * The plugin's error mapping against a small HTTP server on loopback that answers what the API
 * would (refusals, outages): what reaches stdout, and with which exit status.
 */
describe('plugin calls and their errors', () => {
  let server: Server;
  let url: string;
  let handler: Handler;
  let requests: Array<{ method: string; url: string; authorization?: string; body: string }>;
  let dir: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        requests.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
        handler(req, body, res);
      });
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    dir = mkdtempSync(join(tmpdir(), 'ipledger-ipam-'));
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    requests = [];
  });

  const reply =
    (status: number, body?: unknown): Handler =>
    (_req, _body, res) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? undefined : JSON.stringify(body));
    };
  const env = (command: string) => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: 'c1',
    CNI_IFNAME: 'eth0',
    CNI_NETNS: '/var/run/netns/x',
    CNI_ARGS: 'K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0;K8S_POD_UID=u1',
  });
  const config = (ipam: Record<string, unknown> = {}, cniVersion = '1.0.0') =>
    JSON.stringify({
      cniVersion,
      name: 'pods',
      type: 'bridge',
      ipam: { type: 'ipledger-ipam', url, node: 'n1', timeoutSeconds: 2, ...ipam },
    });
  const error = async (command: string, stdin: string, environment: NodeJS.ProcessEnv = env(command)) => {
    const outcome = await runPlugin(environment, stdin);
    expect(outcome.exitCode).toBe(1);
    const json = JSON.parse(outcome.stdout);
    expect(Object.keys(json).sort()).toEqual(['cniVersion', 'code', 'details', 'msg']);
    return json;
  };

  it('ADD posts the handle, pod, node, network and pool rule, and prints the result', async () => {
    handler = reply(201, { items: [{ ip: '10.0.0.2', prefixLength: 24, family: 4, gateway: '10.0.0.1', pool: 'p' }] });
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'secret-token\n');
    const outcome = await runPlugin(env('ADD'), config({ pools: ['p'], families: [4], tokenFile }));
    expect(outcome).toEqual({
      exitCode: 0,
      stdout: JSON.stringify({ cniVersion: '1.0.0', ips: [{ address: '10.0.0.2/24', gateway: '10.0.0.1' }] }),
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: 'POST', url: '/v1/allocations', authorization: 'Bearer secret-token' });
    expect(JSON.parse(requests[0].body)).toEqual({
      handle: 'c1:eth0',
      node: 'n1',
      namespace: 'default',
      pod: 'web-0',
      podUid: 'u1',
      owner: 'pod',
      network: 'pods',
      families: [4],
      pools: ['p'],
    });
  });

  it('a refusal by the API is code 100 with its code and message', async () => {
    handler = reply(409, {
      statusCode: 409,
      error: 'Conflict',
      code: 'POOL_EXHAUSTED',
      message: 'no free IPv4 address in the eligible pools: p (full)',
    });
    const json = await error('ADD', config());
    expect(json).toMatchObject({
      cniVersion: '1.0.0',
      code: 100,
      msg: 'POOL_EXHAUSTED: no free IPv4 address in the eligible pools: p (full)',
    });
    expect(json.details).toContain('answered 409');
    handler = reply(403, { code: 'FORBIDDEN', message: 'role reader may not POST' });
    expect(await error('DEL', config())).toMatchObject({ code: 100, msg: 'FORBIDDEN: role reader may not POST' });
  });

  it('a 500 is code 11 at once; a 503 is retried within timeoutSeconds, then code 11', async () => {
    handler = reply(500, { code: 'INTERNAL', message: 'internal error' });
    expect(await error('ADD', config())).toMatchObject({ code: 11, msg: expect.stringContaining('answered 500') });
    expect(requests).toHaveLength(1);
    requests = [];
    handler = reply(503, { code: 'UNAVAILABLE', message: 'the database is unreachable; retry later' });
    expect(await error('DEL', config({ timeoutSeconds: 0.5 }))).toMatchObject({
      code: 11,
      msg: expect.stringContaining('try again later'),
    });
    expect(requests.length).toBeGreaterThan(1);
  });

  it('a passing 503 is retried, and the call then succeeds', async () => {
    let calls = 0;
    handler = (req, body, res) => (++calls < 3 ? reply(503, { code: 'UNAVAILABLE' }) : reply(204))(req, body, res);
    expect(await runPlugin(env('DEL'), config())).toEqual({ exitCode: 0, stdout: '' });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(Array(3).fill('DELETE /v1/allocations/c1%3Aeth0?podUid=u1'));
  });

  it('an API that does not answer within timeoutSeconds is code 11', async () => {
    handler = () => undefined; // never answers
    const json = await error('ADD', config({ timeoutSeconds: 0.3 }));
    expect(json).toMatchObject({ code: 11, msg: expect.stringContaining('no answer within 0.3 s') });
  });

  it('an API that cannot be reached is code 11, and the retries are logged to logFile, not stdout', async () => {
    const closed = createServer().listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    const logFile = join(dir, 'plugin.log');
    const json = await error('ADD', config({ url: `http://127.0.0.1:${port}`, timeoutSeconds: 0.5, logFile }));
    expect(json).toMatchObject({ code: 11, msg: expect.stringContaining('ECONNREFUSED') });
    expect(readFileSync(logFile, 'utf8')).toMatch(/ADD c1:eth0: POST \/v1\/allocations: attempt 1: cannot be reached \(ECONNREFUSED\)/);
  });

  it('bad environment is code 4, bad config 7, a missing token file 7, an old version for CHECK or GC 1', async () => {
    handler = reply(204);
    expect(await error('ADD', config(), { ...env('ADD'), CNI_CONTAINERID: '' })).toMatchObject({ code: 4 });
    expect(await error('ADD', config(), { ...env('ADD'), CNI_ARGS: '' })).toMatchObject({ code: 4 });
    expect(await error('ADD', config(), { CNI_COMMAND: 'add' })).toMatchObject({ code: 4, cniVersion: '1.1.0' });
    expect(await error('ADD', config({ families: [5] }))).toMatchObject({ code: 7 });
    expect(await error('DEL', config({ tokenFile: join(dir, 'absent') }))).toMatchObject({ code: 7 });
    expect(await error('CHECK', config({}, '0.3.1'))).toMatchObject({ code: 1, cniVersion: '0.3.1' });
    expect(await error('GC', config({}, '1.0.0'))).toMatchObject({ code: 1 });
    expect(await error('GC', config({}, '1.1.0'))).toMatchObject({ code: 7, msg: expect.stringContaining('cni.dev/valid-attachments') });
    expect(requests).toEqual([]);
  });

  it('a surprise answer is a CNI error without a stack trace on stdout', async () => {
    handler = reply(201, { unexpected: true });
    const json = await error('ADD', config());
    expect(json.code).toBe(999);
    expect(JSON.stringify(json)).not.toMatch(/ at .*\.(ts|js):\d+/);
  });

  it('VERSION needs no config and lists the supported versions', async () => {
    expect(JSON.parse((await runPlugin({ CNI_COMMAND: 'VERSION' }, '')).stdout)).toEqual({
      cniVersion: '1.1.0',
      supportedVersions: ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'],
    });
  });
});
