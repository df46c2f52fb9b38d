import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { loadConfig } from '../../apps/api/src/config';
import { createApp } from '../../apps/api/src/create-app';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface TestApi {
  db: TestDatabase;
  apps: INestApplication[];
  /** a supertest agent on instance `i` */
  http(i?: number): ReturnType<typeof request>;
  /** rows in the events table, read directly: "appends nothing" must not depend on the API's own reads */
  eventCount(): Promise<number>;
  close(): Promise<void>;
}

/** One or more API instances (replicas) over one fresh database, on ephemeral loopback ports. */
export async function startTestApi(suite: string, options: { replicas?: number; env?: NodeJS.ProcessEnv } = {}): Promise<TestApi> {
  const db = await createTestDatabase(suite);
  const config = loadConfig({ DATABASE_URL: db.url, PORT: '0', ...options.env });
  const apps: INestApplication[] = [];
  for (let i = 0; i < (options.replicas ?? 1); i++) {
    const app = await createApp(config, { logger: false });
    await app.listen(0, '127.0.0.1');
    apps.push(app);
  }
  return {
    db,
    apps,
    http: (i = 0) => request(apps[i].getHttpServer()),
    async eventCount() {
      return Number((await db.pool.query('SELECT count(*) FROM events')).rows[0].count);
    },
    async close() {
      for (const app of apps) await app.close();
      await db.drop();
    },
  };
}
