import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../../../test/support/test-database';
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

/** Every route of the OpenAPI document × every kind of caller, against API.md's Access section. */
describe('access matrix', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('access-matrix', { env: { IPAM_TOKENS: 'r-token:reader,a-token:allocator,root-token:admin' } });
    await api.http().post('/v1/pools').set('authorization', 'Bearer root-token').send({ name: 'p', cidr: '10.3.0.0/24' }).expect(201);
  });
  afterAll(() => api.close());

  type Caller = 'none' | 'wrong' | 'reader' | 'allocator' | 'admin';
  const header: Record<Caller, string | undefined> = {
    none: undefined,
    wrong: 'Bearer not-a-token',
    reader: 'Bearer r-token',
    allocator: 'Bearer a-token',
    admin: 'Bearer root-token',
  };

  /** API.md: reader may GET; allocator may also POST/DELETE allocations; admin may do everything. */
  function allowed(caller: Caller, method: string, path: string): boolean {
    if (caller === 'none' || caller === 'wrong') return false;
    if (caller === 'admin' || method === 'get') return true;
    return caller === 'allocator' && (method === 'post' || method === 'delete') && path.startsWith('/v1/allocations');
  }

  const sample: Record<string, string> = { name: 'p', handle: 'h', namespace: 'ns', ip: '10.3.0.1' };

  it('answers every /v1 route as API.md says, and leaves health, metrics and docs open', async () => {
    const doc = (await api.http().get('/docs-json')).body as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ path, method })));
    expect(routes.filter((r) => r.path.startsWith('/v1')).length).toBeGreaterThanOrEqual(19);
    const mismatches: string[] = [];
    for (const { path, method } of routes) {
      const url = path.replace(/\{(\w+)\}/g, (_, param: string) => sample[param]);
      for (const caller of Object.keys(header) as Caller[]) {
        let req = (api.http() as unknown as Record<string, (url: string) => import('supertest').Test>)[method](url);
        if (header[caller]) req = req.set('authorization', header[caller]);
        if (method !== 'get' && method !== 'delete') req = req.send({});
        const res = await req;
        const expected = !path.startsWith('/v1')
          ? 'open'
          : allowed(caller, method, path)
            ? 'allowed'
            : caller === 'none' || caller === 'wrong'
              ? 401
              : 403;
        const ok =
          expected === 'open' || expected === 'allowed'
            ? res.status !== 401 && res.status !== 403 && res.status < 500
            : res.status === expected && res.body.code === (expected === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN');
        if (!ok) mismatches.push(`${method.toUpperCase()} ${url} as ${caller}: ${res.status}, expected ${expected}`);
      }
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

  it('keeps the previous tokens when the file no longer parses', async () => {
    writeFileSync(file, 'broken-entry-without-role\n');
    // the broken file is looked at within the poll interval; a valid token keeps working meanwhile and after
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await status('second-token')).toBe(200);
  });
});
