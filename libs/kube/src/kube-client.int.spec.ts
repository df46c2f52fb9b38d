import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KUBE_RESOURCE_PATHS } from '@ipledger/messaging';
import { startConnectProxy, type TestProxy } from '../../../test/support/connect-proxy';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startSocksProxy } from '../../../test/support/socks-proxy';
import { HttpKubeClient, KubeApiError, ResourceExpiredError, type WatchEvent } from './kube-client';
import { loadKubeConnection, type KubeConnection } from './kubeconfig';

const PODS = KUBE_RESOURCE_PATHS.pod;

async function collect(events: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const all: WatchEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** A server whose every response is written by the test, piece by piece. */
async function rawServer(
  respond: (response: http.ServerResponse) => void | Promise<void>,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => void respond(response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('HttpKubeClient', () => {
  let dir: string;
  let api: FakeKubeApi;
  let client: HttpKubeClient;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-client-'));
    api = await startFakeKubeApi({ token: 's3cret' });
    client = new HttpKubeClient(loadKubeConnection({ env: { KUBECONFIG: api.writeKubeconfig(dir) } }));
  });
  afterEach(async () => {
    client.close();
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists page by page with the bearer token from the kubeconfig', async () => {
    for (const name of ['c', 'a', 'b']) api.upsert('pod', { metadata: { name, namespace: 'ns' } });
    const first = await client.list(PODS, { limit: 2 });
    expect(first.items.map((pod) => pod.metadata.name)).toEqual(['a', 'b']);
    expect(first.metadata.continue).toBeTruthy();
    api.upsert('pod', { metadata: { name: 'aa', namespace: 'ns' } });
    const second = await client.list(PODS, { limit: 2, continue: first.metadata.continue });
    // the continuation comes from the first page's snapshot: the pod created in between is not in it
    expect(second.items.map((pod) => pod.metadata.name)).toEqual(['c']);
    expect(second.metadata).toEqual({ resourceVersion: first.metadata.resourceVersion });
    expect(api.requests.map((request) => request.query.limit)).toEqual(['2', '2']);
  });

  it('turns a refusal into a KubeApiError with the Status body', async () => {
    const anonymous = new HttpKubeClient({ server: api.url, insecureSkipTlsVerify: false, source: 'test' });
    try {
      const error = await anonymous.list(PODS).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(KubeApiError);
      expect(error).not.toBeInstanceOf(ResourceExpiredError);
      expect(error).toMatchObject({ statusCode: 401, status: { kind: 'Status', reason: 'Unauthorized', code: 401 } });
    } finally {
      anonymous.close();
    }
  });

  it('reports an expired continue token as ResourceExpiredError', async () => {
    for (const name of ['a', 'b']) api.upsert('node', { metadata: { name } });
    const first = await client.list(KUBE_RESOURCE_PATHS.node, { limit: 1 });
    api.upsert('node', { metadata: { name: 'c' } });
    api.compact();
    const error = await client
      .list(KUBE_RESOURCE_PATHS.node, { limit: 1, continue: first.metadata.continue })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ResourceExpiredError);
    expect(error).toMatchObject({ statusCode: 410, status: { reason: 'Expired', code: 410 } });
  });

  it('watches history after the resourceVersion, then live events and bookmarks, until the server ends the stream', async () => {
    const a = api.upsert('pod', { metadata: { name: 'a' } });
    api.upsert('pod', { metadata: { name: 'a' }, spec: { nodeName: 'n1' } });
    const events: WatchEvent[] = [];
    for await (const event of client.watch(PODS, { resourceVersion: a.metadata.resourceVersion, allowWatchBookmarks: true })) {
      events.push(event);
      if (events.length === 1) {
        api.remove('pod', 'default/a');
        api.upsert('node', { metadata: { name: 'n1' } });
        api.sendBookmarks();
        api.endWatches();
      }
    }
    expect(events.map((event) => [event.type, event.object.metadata.resourceVersion])).toEqual([
      ['MODIFIED', '2'],
      ['DELETED', '3'],
      ['BOOKMARK', '4'],
    ]);
    expect(events[0].object).toMatchObject({ kind: 'Pod', apiVersion: 'v1', spec: { nodeName: 'n1' } });
    expect(api.requests[0].query).toMatchObject({ watch: '1', resourceVersion: '1', allowWatchBookmarks: 'true' });
  });

  it.each(['status', 'event'] as const)(
    'reports a watch from a compacted resourceVersion (%s) as ResourceExpiredError',
    async (expiredWatch) => {
      const expiring = await startFakeKubeApi({ expiredWatch });
      const plain = new HttpKubeClient({ server: expiring.url, insecureSkipTlsVerify: false, source: 'test' });
      try {
        expiring.upsert('pod', { metadata: { name: 'a' } });
        expiring.upsert('pod', { metadata: { name: 'b' } });
        expiring.compact();
        const error = await collect(plain.watch(PODS, { resourceVersion: '1' })).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ResourceExpiredError);
        expect(error).toMatchObject({ statusCode: 410, status: { code: 410, reason: 'Expired' } });
        expect(expiring.requests[0].status).toBe(expiredWatch === 'status' ? 410 : 200);
      } finally {
        plain.close();
        await expiring.close();
      }
    },
  );

  it('stops a watch quietly when its signal aborts', async () => {
    const controller = new AbortController();
    const done = collect(client.watch(PODS, { resourceVersion: api.resourceVersion(), signal: controller.signal }));
    api.upsert('pod', { metadata: { name: 'a' } });
    setTimeout(() => controller.abort(), 50);
    expect((await done).map((event) => event.type)).toEqual(['ADDED']);
  });
});

describe('HttpKubeClient watch stream parsing', () => {
  const plain = (url: string) => new HttpKubeClient({ server: `${url}/prefix/`, insecureSkipTlsVerify: false, source: 'test' });

  it('reassembles events split across chunks, several in one chunk, multi-byte characters and a last line without newline', async () => {
    const first = JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'zürich-ü', resourceVersion: '5' } } });
    const second = JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'b', resourceVersion: '6' } } });
    const third = JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'c', resourceVersion: '7' } } });
    const bytes = Buffer.from(`${first}\n\n${second}\n${third}`);
    const split = bytes.indexOf(Buffer.from('ü')) + 1; // inside the two bytes of ü
    let path = '';
    const server = await rawServer(async (response) => {
      path = response.req.url ?? '';
      response.writeHead(200, { 'content-type': 'application/json' });
      for (const piece of [
        bytes.subarray(0, 3),
        bytes.subarray(3, split),
        bytes.subarray(split, first.length + 20),
        bytes.subarray(first.length + 20),
      ]) {
        response.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      response.end();
    });
    const client = plain(server.url);
    try {
      const events = await collect(client.watch('/api/v1/pods', { resourceVersion: '4', timeoutSeconds: 30 }));
      expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
        ['ADDED', 'zürich-ü'],
        ['MODIFIED', 'b'],
        ['DELETED', 'c'],
      ]);
      expect(path).toBe('/prefix/api/v1/pods?watch=1&resourceVersion=4&timeoutSeconds=30');
    } finally {
      client.close();
      await server.close();
    }
  });

  it('throws an ERROR event that is not a 410 as a KubeApiError with its Status', async () => {
    const status = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'InternalError', code: 500, message: 'etcd hiccup' };
    const server = await rawServer((response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
    });
    const client = plain(server.url);
    try {
      const error = await collect(client.watch('/api/v1/pods')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(KubeApiError);
      expect(error).not.toBeInstanceOf(ResourceExpiredError);
      expect(error).toMatchObject({ statusCode: 500, status });
    } finally {
      client.close();
      await server.close();
    }
  });
});

describe('HttpKubeClient over TLS', () => {
  let dir: string;
  let server: https.Server;
  let serverUrl: string;
  const peers: string[] = [];
  const pem = (name: string) => readFileSync(join(dir, name));
  const connect = (connection: Partial<KubeConnection>) =>
    new HttpKubeClient({ server: serverUrl, insecureSkipTlsVerify: false, source: 'test', ...connection });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-tls-'));
    // self-signed leaves are their own trust anchors: enough to check CA, client certificate and skip-verify
    for (const [name, san] of [
      ['server', 'IP:127.0.0.1'],
      ['client', 'DNS:client'],
    ]) {
      const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
      execFileSync(
        'openssl',
        [...args, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`, '-addext', `subjectAltName=${san}`],
        {
          cwd: dir,
          stdio: 'pipe',
        },
      );
    }
    const options = { key: pem('server.key'), cert: pem('server.crt'), ca: pem('client.crt'), requestCert: true, rejectUnauthorized: true };
    server = https.createServer(options, (request, response) => {
      peers.push((request.socket as TLSSocket).getPeerCertificate().subject.CN as string);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    serverUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
    rmSync(dir, { recursive: true, force: true });
  });

  async function attempt(connection: Partial<KubeConnection>): Promise<unknown> {
    const client = connect(connection);
    try {
      return await client.list(PODS);
    } catch (error) {
      return error;
    } finally {
      client.close();
    }
  }

  it('verifies the server with the CA and authenticates with the client certificate', async () => {
    expect(await attempt({ ca: pem('server.crt'), cert: pem('client.crt'), key: pem('client.key') })).toEqual({
      metadata: { resourceVersion: '1' },
      items: [],
    });
    expect(peers).toEqual(['client']);
  });

  it('refuses a server its CA does not vouch for, unless insecure-skip-tls-verify is set', async () => {
    const credentials = { cert: pem('client.crt'), key: pem('client.key') };
    expect(await attempt(credentials)).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(await attempt({ ...credentials, ca: pem('client.crt') })).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(await attempt({ ...credentials, insecureSkipTlsVerify: true })).toMatchObject({ items: [] });
  });

  it('is refused by a server that requires a client certificate when it has none', async () => {
    const error = await attempt({ ca: pem('server.crt') });
    expect(error).toMatchObject({ code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' });
  });
});

describe('HttpKubeClient through a proxy', () => {
  // a name only the proxies resolve (to 127.0.0.1): a request that reaches the server went through one
  const HOST = 'kube.test';
  const CREDENTIALS = 'alice:p@ss';
  let dir: string;
  let api: FakeKubeApi;
  let tlsApi: FakeKubeApi;
  let proxy: TestProxy;
  let socks: TestProxy;
  let serverCa: Buffer;
  const clients: HttpKubeClient[] = [];
  const port = (url: string) => new URL(url).port;
  const viaName = (url: string) => `${new URL(url).protocol}//${HOST}:${port(url)}`;
  const withCredentials = (url: string) => url.replace('://', '://alice:p%40ss@');
  const connect = (env: NodeJS.ProcessEnv, cluster: Record<string, unknown>, target = api) => {
    const connection = loadKubeConnection({ env: { KUBECONFIG: target.writeKubeconfig(dir, cluster), ...env } });
    const client = new HttpKubeClient(connection, { listIdleTimeoutMs: 2000 });
    clients.push(client);
    return { connection, client };
  };
  let watched = 0;
  /** watches while a new pod is created: the event types seen */
  const watchOnce = async (client: HttpKubeClient, target: FakeKubeApi) => {
    const done = collect(client.watch(PODS, { resourceVersion: target.resourceVersion() }));
    while (target.activeWatches('pod') === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    target.upsert('pod', { metadata: { name: `watched-${++watched}` } });
    target.endWatches();
    return (await done).map((event) => event.type);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-proxy-'));
    const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
    execFileSync(
      'openssl',
      [...args, '-keyout', 'api.key', '-out', 'api.crt', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`],
      {
        cwd: dir,
        stdio: 'pipe',
      },
    );
    serverCa = readFileSync(join(dir, 'api.crt'));
    api = await startFakeKubeApi({ token: 's3cret' });
    tlsApi = await startFakeKubeApi({ token: 's3cret', tls: { key: readFileSync(join(dir, 'api.key')), cert: serverCa } });
    proxy = await startConnectProxy({ hosts: { [HOST]: '127.0.0.1' }, credentials: CREDENTIALS });
    socks = await startSocksProxy({ hosts: { [HOST]: '127.0.0.1' } });
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    proxy.requests.length = 0;
    socks.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all([api.close(), tlsApi.close(), proxy.close(), socks.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists and watches an http server through the proxy-url, one kept-alive tunnel, with the proxy credentials', async () => {
    api.upsert('pod', { metadata: { name: 'a' } });
    const { connection, client } = connect({}, { server: viaName(api.url), 'proxy-url': withCredentials(proxy.url) });
    expect((await client.list(PODS)).items.map((pod) => pod.metadata.name)).toContain('a');
    await client.list(PODS);
    expect(await watchOnce(client, api)).toEqual(['ADDED']);
    expect(proxy.requests).toEqual([
      { method: 'CONNECT', target: `${HOST}:${port(api.url)}`, proxyAuthorization: `Basic ${Buffer.from(CREDENTIALS).toString('base64')}` },
    ]);
    expect(connection.source).toContain(`via proxy ${proxy.url}`);
    expect(connection.source).not.toMatch(/alice|p%40ss/);
  });

  it('verifies an https server inside the CONNECT tunnel, with its CA and name', async () => {
    const { client } = connect(
      {},
      {
        server: viaName(tlsApi.url),
        'proxy-url': withCredentials(proxy.url),
        'insecure-skip-tls-verify': false,
        'certificate-authority-data': serverCa.toString('base64'),
      },
      tlsApi,
    );
    await client.list(PODS);
    expect(await watchOnce(client, tlsApi)).toEqual(['ADDED']);
    expect(proxy.requests.map((request) => request.target)).toEqual([`${HOST}:${port(tlsApi.url)}`]);
    expect(tlsApi.requests.map((request) => request.verb)).toEqual(['list', 'watch']);
  });

  it('is refused by a proxy that wants credentials when the proxy-url has none', async () => {
    const { client } = connect({}, { server: viaName(api.url), 'proxy-url': proxy.url });
    await expect(client.list(PODS)).rejects.toThrow(/407/);
    expect(proxy.requests[0].proxyAuthorization).toBeUndefined();
  });

  it('takes HTTPS_PROXY when the kubeconfig names no proxy, unless NO_PROXY lists the server', async () => {
    const env = { HTTPS_PROXY: withCredentials(proxy.url) };
    const cluster = { server: viaName(tlsApi.url) };
    const { connection, client } = connect(env, cluster, tlsApi);
    expect((await client.list(PODS)).metadata.resourceVersion).toBe(tlsApi.resourceVersion());
    expect(proxy.requests.map((request) => request.target)).toEqual([`${HOST}:${port(tlsApi.url)}`]);
    expect(connection.source).toContain(`via proxy ${proxy.url}`);

    proxy.requests.length = 0;
    const bypassed = connect({ ...env, NO_PROXY: `other.example,.test:${port(tlsApi.url)}` }, cluster, tlsApi);
    expect(bypassed.connection.proxyUrl).toBeUndefined();
    // straight to a name only the proxy knows: it fails, and the proxy saw nothing
    await expect(bypassed.client.list(PODS)).rejects.toThrow();
    expect(proxy.requests).toEqual([]);
  });

  it('prefers the proxy-url over HTTPS_PROXY and HTTP_PROXY', async () => {
    const dead = 'http://127.0.0.1:9';
    const { client } = connect(
      { HTTPS_PROXY: dead, HTTP_PROXY: dead },
      { server: viaName(api.url), 'proxy-url': withCredentials(proxy.url) },
    );
    await client.list(PODS);
    expect(proxy.requests).toHaveLength(1);
  });

  it.each(['socks5', 'socks5h'])('goes through a %s proxy, which resolves the server name, to http and https servers', async (scheme) => {
    const socksUrl = socks.url.replace('socks5:', `${scheme}:`);
    const plain = connect({}, { server: viaName(api.url), 'proxy-url': socksUrl });
    expect(await watchOnce(plain.client, api)).toEqual(['ADDED']);
    const secure = connect(
      {},
      {
        server: viaName(tlsApi.url),
        'proxy-url': socksUrl,
        'insecure-skip-tls-verify': false,
        'certificate-authority-data': serverCa.toString('base64'),
      },
      tlsApi,
    );
    await secure.client.list(PODS);
    expect(socks.requests.map((request) => request.target)).toEqual([`${HOST}:${port(api.url)}`, `${HOST}:${port(tlsApi.url)}`]);
    expect(plain.connection.source).toContain(`via proxy ${socksUrl}`);
  });
});
