import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';
import { AppLogger } from '../src/infrastructure/app-logger';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/** The API's log lines: one JSON object each, with the request's id and actor when written while serving it. */
describe('JSON logs', () => {
  let db: TestDatabase;
  const lines: string[] = [];
  const logger = new AppLogger({ format: 'json', level: 'debug', write: (line) => lines.push(line) });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  async function start(databaseUrl: string): Promise<INestApplication> {
    const app = await createApp(
      loadConfig({ DATABASE_URL: databaseUrl, IPAM_KUBERNETES_CONSUMER: 'off', IPAM_TOKENS: 'sesame:admin:alice' }),
      { logger },
    );
    await app.listen(0, '127.0.0.1');
    return app;
  }

  beforeAll(async () => (db = await createTestDatabase('logs')));
  afterAll(() => db.drop());
  beforeEach(() => (lines.length = 0));

  it('writes one object a line, Nest start-up lines included, its route mapping at debug', async () => {
    const app = await start(db.url);
    await app.close();
    expect(lines.length).toBeGreaterThan(0);
    for (const entry of parsed()) {
      expect(entry).toEqual(expect.objectContaining({ level: expect.any(String), message: expect.any(String) }));
      expect(new Date(entry.time as string).toISOString()).toBe(entry.time);
    }
    for (const context of ['RoutesResolver', 'RouterExplorer', 'InstanceLoader'])
      expect(parsed()).toContainEqual(expect.objectContaining({ level: 'debug', context }));
    expect(
      parsed()
        .filter((entry) => entry.level !== 'debug')
        .map((entry) => entry.context),
    ).not.toContain('RouterExplorer');
  });

  it('writes no route-mapping line at the default level (info)', async () => {
    const quiet = new AppLogger({ format: 'json', write: (line) => lines.push(line) });
    const app = await createApp(loadConfig({ DATABASE_URL: db.url, IPAM_KUBERNETES_CONSUMER: 'off', IPAM_TOKENS: 'sesame:admin:alice' }), {
      logger: quiet,
    });
    await app.listen(0, '127.0.0.1');
    await app.close();
    expect(parsed().map((entry) => entry.message)).not.toContainEqual(
      expect.stringMatching(/^Mapped \{|Nest application successfully started/),
    );
    expect(parsed().map((entry) => entry.level)).not.toContain('debug');
  });

  it('logs each request with its id, actor, status and route', async () => {
    const app = await start(db.url);
    try {
      await request(app.getHttpServer()).get('/v1/pools').set('authorization', 'Bearer sesame').set('x-request-id', 'req-42').expect(200);
      await request(app.getHttpServer()).get('/v1/pools').set('x-request-id', 'req-43').expect(401);
    } finally {
      await app.close();
    }
    expect(parsed()).toContainEqual(
      expect.objectContaining({
        level: 'info',
        message: 'request completed',
        requestId: 'req-42',
        actor: 'alice',
        method: 'GET',
        path: '/v1/pools',
        status: 200,
      }),
    );
    expect(parsed()).toContainEqual(expect.objectContaining({ requestId: 'req-43', actor: 'anonymous', status: 401 }));
  });

  it('gives a line written deep inside a request (a database outage) that request id', async () => {
    const app = await start('postgres://postgres@127.0.0.1:1/ipledger');
    try {
      await request(app.getHttpServer())
        .post('/v1/pools')
        .set('authorization', 'Bearer sesame')
        .set('x-request-id', 'req-down')
        .send({ name: 'p', cidr: '10.0.0.0/24' })
        .expect(503);
    } finally {
      await app.close();
    }
    expect(parsed()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        context: 'http',
        requestId: 'req-down',
        actor: 'alice',
        message: expect.stringMatching(/^UNAVAILABLE/),
      }),
    );
  });
});
