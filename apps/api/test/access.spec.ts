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
    const events = await api
      .http()
      .get('/v1/events')
      .query({ streamId: 'pool-p', type: 'PoolUpdated' })
      .set('authorization', as('r-token'));
    expect(events.body.items[0].metadata).toMatchObject({ actor: 'ops-team', source: 'rest', correlationId: 'req-42' });
  });
});
