import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '../../apps/api/src/config';
import { createApp } from '../../apps/api/src/create-app';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestApi {
  db: TestDatabase;
  app: INestApplication;
  /** a supertest agent on the app */
  http(): ReturnType<typeof request>;
  /** rows in the events table, read directly: "appends nothing" must not depend on the API's own reads */
  eventCount(): Promise<number>;
  close(): Promise<void>;
}

/** The API in this process on `databaseUrl`, on an ephemeral loopback port (no NATS consumer unless env turns it on). */
export async function listenApi(databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<INestApplication> {
  const app = await createApp(loadConfig({ DATABASE_URL: databaseUrl, PORT: '0', IPAM_KUBERNETES_CONSUMER: 'off', ...env }), {
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  return app;
}

/** listenApi over one fresh database. */
export async function startTestApi(suite: string, options: { env?: NodeJS.ProcessEnv } = {}): Promise<TestApi> {
  const db = await createTestDatabase(suite);
  const app = await listenApi(db.url, options.env);
  return {
    db,
    app,
    http: () => request(app.getHttpServer()),
    async eventCount() {
      return Number((await db.pool.query('SELECT count(*) FROM events')).rows[0].count);
    },
    async close() {
      await app.close();
      await db.drop();
    },
  };
}
