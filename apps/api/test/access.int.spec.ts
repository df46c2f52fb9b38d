import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../../test/support/eventually';
import { rawRequest } from '../../../test/support/raw-http';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('access with IPAM_TOKENS', () => {
  let api: TestApi;
  beforeAll(
    async () =>
      (api = await startTestApi('access', { env: { IPAM_TOKENS: 'r-token:reader,a-token:allocator,root-token:admin:ops-team' } })),
  );
  afterAll(() => api.close());

  const as = (token: string) => `Bearer ${token}`;

  it('answers 401 without a valid token on /v1, and leaves health open', async () => {
    const none = await api.http().get('/v1/pools');
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ statusCode: 401, code: 'UNAUTHENTICATED' });
    expect((await api.http().get('/v1/pools').set('authorization', as('wrong'))).status).toBe(401);
    expect((await api.http().get('/healthz')).status).toBe(200);
  });

  it('lets a reader GET but not write (403)', async () => {
    expect((await api.http().get('/v1/pools').set('authorization', as('r-token'))).status).toBe(200);
    const write = await api.http().post('/v1/allocations').set('authorization', as('r-token')).send({});
    expect(write.status).toBe(403);
    expect(write.body.code).toBe('FORBIDDEN');
  });

  it('lets an allocator allocate and release but not manage pools', async () => {
    const created = await api.http().post('/v1/pools').set('authorization', as('root-token')).send({ name: 'p', cidr: '10.3.0.0/24' });
    expect(created.status).toBe(201);
    expect((await api.http().post('/v1/pools').set('authorization', as('a-token')).send({ name: 'q', cidr: '10.4.0.0/24' })).status).toBe(
      403,
    );
    const alloc = await api
      .http()
      .post('/v1/allocations')
      .set('authorization', as('a-token'))
      .send({ handle: 'h', node: 'n', namespace: 'ns', pod: 'p' });
    expect(alloc.status).toBe(201);
    expect((await api.http().delete('/v1/allocations/h').set('authorization', as('a-token'))).status).toBe(204);
  });

  it('reads Authorization by RFC 7235: the scheme in any case, one token, nothing after it, one header', async () => {
    const port = (api.app.getHttpServer().address() as AddressInfo).port;
    const pools = (headers: Record<string, string>) => rawRequest(port, 'GET', '/v1/pools', headers);
    for (const value of ['bearer r-token', 'BEARER r-token', 'Bearer   r-token'])
      expect({ value, status: (await pools({ Authorization: value })).status }).toEqual({ value, status: 200 });
    for (const value of ['Bearer r-token garbage', 'Bearer r-token, Bearer r-token', 'Bearer r-token,', 'Basic r-token', 'Bearerr-token']) {
      const { status, body } = await pools({ Authorization: value });
      expect({ value, status, code: JSON.parse(body).code }).toEqual({ value, status: 401, code: 'UNAUTHENTICATED' });
    }
    // two fields: refused whatever they hold, the same token twice included
    for (const second of ['Bearer r-token', 'Bearer root-token', 'Bearer wrong'])
      expect((await pools({ Authorization: 'Bearer r-token', authorization: second })).status).toBe(401);
  });

  it('records the token name as the actor, and echoes X-Request-Id as the correlation id', async () => {
    const res = await api
      .http()
      .patch('/v1/pools/p')
      .set('authorization', as('root-token'))
      .set('x-request-id', 'req-42')
      .send({ disabled: true });
    expect(res.status).toBe(200);
    expect(res.header['x-request-id']).toBe('req-42');
    // the log shows only what committed before every transaction still running (other suites share the server)
    const events = await eventually(
      () => api.http().get('/v1/events').query({ streamId: 'pool-p', type: 'PoolUpdated' }).set('authorization', as('r-token')),
      (res) => res.body.items?.length > 0,
    );
    expect(events.body.items[0].metadata).toMatchObject({ actor: 'ops-team', source: 'rest', correlationId: 'req-42' });
  });
});

/**
 * Every route of the app's own OpenAPI document (so a route added without declared access fails
 * here) × every spelling of its path × every kind of caller, sent raw over a socket, against
 * API.md's Access section: a caller without the role a route needs is refused (401/403), or the
 * spelling reaches no route (400/404); it is never served, and appends no event.
 */
describe('access matrix', () => {
  let api: TestApi;
  let port: number;
  beforeAll(async () => {
    api = await startTestApi('access-matrix', {
      env: { IPAM_TOKENS: 'r-token:reader,a-token:allocator,n-token:allocator:cni-n::n,root-token:admin' },
    });
    port = (api.app.getHttpServer().address() as AddressInfo).port;
    const admin = (req: import('supertest').Test) => req.set('authorization', 'Bearer root-token');
    // objects for every route to find, so that a request served by mistake would change something
    await admin(api.http().post('/v1/pools')).send({ name: 'p', cidr: '10.3.0.0/24' }).expect(201);
    await admin(api.http().put('/v1/nodes/n'))
      .send({ labels: { rack: 'r1' } })
      .expect(200);
    // a pod's of node n: the node's own credential may release it too
    await admin(api.http().post('/v1/allocations')).send({ handle: 'h', node: 'n', namespace: 'ns', pod: 'p', owner: 'pod' }).expect(201);
    await admin(api.http().put('/v1/statefulsets/ns/p')).send({ replicas: 2, pool: 'p' }).expect(200);
  });
  afterAll(() => api.close());

  /** node: an allocator bound to node n (its own node's pods only: node-credentials.int.spec.ts has the rest) */
  type Caller = 'none' | 'wrong' | 'reader' | 'allocator' | 'node' | 'admin';
  const header: Record<Caller, Record<string, string>> = {
    none: {},
    wrong: { authorization: 'Bearer not-a-token' },
    reader: { authorization: 'Bearer r-token' },
    allocator: { authorization: 'Bearer a-token' },
    node: { authorization: 'Bearer n-token' },
    admin: { authorization: 'Bearer root-token' },
  };
  const callers = Object.keys(header) as Caller[];

  const PUBLIC = ['/healthz', '/readyz', '/metrics', '/docs', '/docs-json', '/ui/'];

  /** API.md: reader may GET; allocator (bound to a node or not) may also POST/DELETE allocations; admin may do everything. */
  function allowed(caller: Caller, method: string, path: string): boolean {
    if (PUBLIC.includes(path)) return true;
    if (caller === 'none' || caller === 'wrong') return false;
    if (caller === 'admin' || method === 'GET') return true;
    // the external IPAM contract's writes are an allocator's (a node's credential: not here, see cases())
    if (method === 'POST' && path.startsWith('/external-ipam/')) return caller === 'allocator';
    return (
      (caller === 'allocator' || caller === 'node') &&
      (method === 'POST' || method === 'DELETE') &&
      /^\/v1\/(clusters\/\{cluster\}\/)?allocations/.test(path)
    );
  }

  /** A node's credential is of its cluster (default): a pool write is refused it as a cluster's credential, before its role. */
  const refusal = (caller: Caller, method: string, path: string) =>
    caller === 'node' && method !== 'GET' && path.startsWith('/v1/pools') ? 'CLUSTER_FORBIDDEN' : 'FORBIDDEN';

  const sample: Record<string, string> = { name: 'p', handle: 'h', namespace: 'ns', ip: '10.3.0.1', cluster: 'default' };
  /** valid bodies: a write that got through would append an event */
  const bodies: Record<string, unknown> = {
    'POST /v1/pools': { name: 'evil', cidr: '10.9.0.0/24' },
    'PATCH /v1/pools/{name}': { disabled: true },
    'PUT /v1/nodes/{name}': { labels: { evil: 'yes' } },
    'POST /v1/allocations': { handle: 'evil', node: 'n', namespace: 'ns', pod: 'evil', owner: 'pod' },
    'POST /v1/clusters/{cluster}/allocations': { handle: 'evil', node: 'n', namespace: 'ns', pod: 'evil', owner: 'pod' },
    'PUT /v1/clusters/{cluster}/nodes/{name}': { labels: { evil: 'yes' } },
    'PUT /v1/statefulsets/{namespace}/{name}': { replicas: 3, pool: 'p' },
    'POST /external-ipam/v1/register': { network: 'evil', subnets: ['10.9.0.0/24'], cluster: 'default' },
  };

  /** Percent-encodes the character at `index` (as %xx, upper or lower case hex). */
  const encodeAt = (path: string, index: number, upper = false) => {
    const hex = path.charCodeAt(index).toString(16);
    return `${path.slice(0, index)}%${upper ? hex.toUpperCase() : hex}${path.slice(index + 1)}`;
  };

  /** Other spellings of a concrete path: encoded letters and digits, doubled slashes, dot segments, `;`, trailing and encoded slashes. */
  function spellings(path: string): string[] {
    const segments = path.split('/').slice(1);
    const starts = segments.map((_, i) => 1 + segments.slice(0, i).join('/').length + (i > 0 ? 1 : 0));
    const out = new Set<string>();
    for (const start of starts) {
      out.add(encodeAt(path, start));
      out.add(encodeAt(path, start, true));
      out.add(encodeAt(path, start + 1 < path.length && path[start + 1] !== '/' ? start + 1 : start));
    }
    out.add(path.replace(/[a-z0-9]/gi, (c) => `%${c.charCodeAt(0).toString(16)}`));
    for (const start of starts) {
      out.add(`${path.slice(0, start)}/${path.slice(start)}`); // a doubled slash
      out.add(`${path.slice(0, start)}./${path.slice(start)}`);
      out.add(`${path.slice(0, start)}x/../${path.slice(start)}`);
      out.add(`${path.slice(0, start)}%2e/${path.slice(start)}`);
      out.add(`${path.slice(0, start)}x/%2e%2e/${path.slice(start)}`);
    }
    for (const segment of segments) out.add(path.replace(`/${segment}`, `/${segment};x=1`));
    out.add(`${path}/`);
    out.add(`${path}//`);
    out.add(`${path}/.`);
    out.add(path.replace(/\//g, '%2F').replace(/^%2F/, '/'));
    out.add(path.replace('/', '/%2F'));
    out.add(path.replace(/\//g, '\\'));
    out.add(`/${path}`);
    out.add(`http://127.0.0.1${path}`);
    out.delete(path);
    return [...out];
  }

  interface Case {
    route: string;
    method: string;
    target: string;
    caller: Caller;
    body?: string;
  }

  async function cases(): Promise<{ canonical: Case[]; other: Case[] }> {
    const doc = (await api.http().get('/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ path, method: method.toUpperCase() })),
    );
    expect(routes.filter((r) => r.path.startsWith('/v1')).length).toBeGreaterThanOrEqual(20);
    const canonical: Case[] = [];
    const other: Case[] = [];
    for (const { path, method } of [...routes, ...['/docs', '/ui/'].map((path) => ({ path, method: 'GET' }))]) {
      const route = `${method} ${path}`;
      const url = path.replace(/\{(\w+)\}/g, (_, param: string) => sample[param]);
      const body = method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(bodies[route] ?? {});
      for (const caller of callers) {
        // its role may, its node may not: refused inside with NODE_FORBIDDEN (external-ipam.int.spec.ts)
        if (caller === 'node' && path.startsWith('/external-ipam/') && method === 'POST') continue;
        canonical.push({ route, method, target: url, caller, body });
        for (const target of spellings(url)) other.push({ route, method, target, caller, body });
      }
    }
    return { canonical, other };
  }

  const send = (c: Case) => rawRequest(port, c.method, c.target, header[c.caller], c.body);
  const describeCase = (c: Case, status: number) => `${c.method} ${c.target} as ${c.caller} (${c.route}): ${status}`;

  it('refuses every spelling of every route to a caller without the role it needs, and appends nothing', async () => {
    const { canonical, other } = await cases();
    const refused = [...canonical, ...other].filter((c) => !allowed(c.caller, c.method, c.route.split(' ')[1]));
    expect(refused.length).toBeGreaterThan(1000);
    const before = await api.eventCount();
    const served: string[] = [];
    for (const c of refused) {
      const { status, body } = await send(c);
      const expected = c.caller === 'none' || c.caller === 'wrong' ? 401 : 403;
      const code = expected === 401 ? 'UNAUTHENTICATED' : refusal(c.caller, c.method, c.route.split(' ')[1]);
      const ok = canonical.includes(c)
        ? status === expected && body.includes(`"code":"${code}"`)
        : [400, 401, 403, 404].includes(status) && (status !== 401 || expected === 401);
      if (!ok) served.push(describeCase(c, status));
    }
    expect(served).toEqual([]);
    expect(await api.eventCount()).toBe(before);
  });

  it('serves each route to the roles API.md gives it, and health, metrics, docs and the UI to anyone', async () => {
    const { canonical } = await cases();
    const mismatches: string[] = [];
    // the deletes last: the other routes still find their objects
    const ordered = canonical
      .filter((c) => allowed(c.caller, c.method, c.route.split(' ')[1]))
      .sort((x, y) => Number(x.method === 'DELETE') - Number(y.method === 'DELETE'));
    for (const c of ordered) {
      const { status } = await send(c);
      if (status === 401 || status === 403 || status >= 500 || status === 0) mismatches.push(describeCase(c, status));
    }
    expect(mismatches).toEqual([]);
  });
});

describe('IPAM_TOKENS_FILE', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ipledger-tokens-'));
  const file = path.join(dir, 'tokens');
  let api: TestApi;
  beforeAll(async () => {
    writeFileSync(file, '# mounted from a Secret\nfirst-token:admin:ops\n');
    api = await startTestApi('access-file', { env: { IPAM_TOKENS_FILE: file } });
  });
  afterAll(async () => {
    await api.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const status = async (token: string) => (await api.http().get('/v1/pools').set('authorization', `Bearer ${token}`)).status;

  it('takes the tokens from the file and re-reads it when it changes', async () => {
    expect(await status('first-token')).toBe(200);
    expect(await status('second-token')).toBe(401);
    expect((await api.http().get('/v1/pools')).status).toBe(401);
    // as a Kubernetes Secret update does: a new file swapped in under the same name
    writeFileSync(`${file}.new`, 'second-token:reader\n');
    renameSync(`${file}.new`, file);
    expect(
      await eventually(
        () => status('second-token'),
        (s) => s === 200,
        15_000,
      ),
    ).toBe(200);
    expect(await status('first-token')).toBe(401);
  });

  /** ipledger_token_file_reads_total{outcome} from /metrics (public) */
  const reads = async (outcome: 'loaded' | 'refused') => {
    const text = (await api.http().get('/metrics')).text;
    return Number(new RegExp(`^ipledger_token_file_reads_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  };

  it('keeps the previous tokens when the file no longer parses, and still takes a later valid one', async () => {
    const refusedBefore = await reads('refused');
    writeFileSync(file, 'broken-entry-without-role\n');
    // the broken file was read (and refused): not merely not looked at yet
    expect(
      await eventually(
        () => reads('refused'),
        (n) => n > refusedBefore,
        15_000,
      ),
    ).toBe(refusedBefore + 1);
    expect(await status('second-token')).toBe(200);
    expect(await status('broken-entry-without-role')).toBe(401);
    writeFileSync(`${file}.new`, 'third-token:reader\n');
    renameSync(`${file}.new`, file);
    expect(
      await eventually(
        () => status('third-token'),
        (s) => s === 200,
        15_000,
      ),
    ).toBe(200);
    expect(await status('second-token')).toBe(401);
  });
});
