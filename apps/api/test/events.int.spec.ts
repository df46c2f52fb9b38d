import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('events and operations over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('events');
    await api.http().post('/v1/pools').send({ name: 'ev', cidr: '10.5.0.0/29' }).expect(201);
    for (const h of ['e1', 'e2', 'e3']) {
      await api.http().post('/v1/allocations').send({ handle: h, node: 'n', namespace: 'ns', pod: h }).expect(201);
    }
    await api.http().delete('/v1/allocations/e2').expect(204);
  });
  afterAll(() => api.close());

  // The log shows an event once every older transaction in the cluster has ended (the rule that
  // keeps the cursor from skipping late commits), so a reader right after a write may wait a moment.
  beforeAll(async () => {
    for (let i = 0; i < 100 && (await api.http().get('/v1/events').query({ limit: 10 })).body.items.length < 5; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('pages through the log in order with the next cursor', async () => {
    const all: Array<{ type: string; position: number }> = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await api
        .http()
        .get('/v1/events')
        .query({ limit: 2, ...(after ? { after } : {}) });
      expect(res.status).toBe(200);
      all.push(...res.body.items);
      if (res.body.items.length === 0) break;
      after = res.body.next;
    }
    expect(all.map((e) => e.type)).toEqual(['PoolCreated', 'IpAllocated', 'IpAllocated', 'IpAllocated', 'IpReleased']);
    expect(all[1]).toMatchObject({ streamId: 'pool-ev', version: 2, data: { ip: '10.5.0.1', handle: 'e1' }, metadata: { source: 'rest' } });
  });

  it('filters by stream and type, and refuses a bad cursor', async () => {
    const released = await api.http().get('/v1/events').query({ type: 'IpReleased' });
    expect(released.body.items).toHaveLength(1);
    expect(released.body.items[0].data).toMatchObject({ handle: 'e2', ip: '10.5.0.2' });
    expect((await api.http().get('/v1/events').query({ streamId: 'pool-none' })).body.items).toEqual([]);
    const bad = await api.http().get('/v1/events').query({ after: 'not-a-cursor' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_ARGUMENT');
  });

  it('answers /healthz and /readyz, and 404 in the error shape for unknown paths', async () => {
    expect((await api.http().get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await api.http().get('/readyz')).body).toMatchObject({ status: 'ready' });
    const missing = await api.http().get('/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND' });
  });
});

describe('metrics', () => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi('metrics')));
  afterAll(() => api.close());

  it('serves Prometheus text with request counts by route pattern', async () => {
    await api.http().get('/v1/pools/none').expect(404);
    const res = await api.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.header['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/ipledger_http_requests_total\{method="GET",route="\/v1\/pools\/:name",status="404"\} 1/);
  });
});

describe('with the database down', () => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await createApp(loadConfig({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/ipledger', IPAM_KUBERNETES_CONSUMER: 'off' }), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('stays live, is not ready, and answers 503 UNAVAILABLE instead of a 500', async () => {
    expect((await request(app.getHttpServer()).get('/healthz')).status).toBe(200);
    const ready = await request(app.getHttpServer()).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ statusCode: 503, code: 'UNAVAILABLE' });
    const write = await request(app.getHttpServer()).post('/v1/pools').send({ name: 'p', cidr: '10.0.0.0/24' });
    expect(write.status).toBe(503);
    expect(write.body.code).toBe('UNAVAILABLE');
  });
});
