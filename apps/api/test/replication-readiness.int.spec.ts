import type { INestApplication } from '@nestjs/common';
import { connectPostgres, runMigrations } from '@ipledger/event-store';
import request from 'supertest';
import { startPrivatePostgres, type PrivatePostgres } from '../../../test/support/private-postgres';
import { startTestApi } from '../../../test/support/test-api';
import { MIGRATIONS_DIR } from '../../../test/support/test-database';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';

const verbose = (app: INestApplication) => request(app.getHttpServer()).get('/readyz?verbose');

describe('/readyz reports whether the database server replicates synchronously', () => {
  it('without a synchronous standby: reported failed but not required, unless IPAM_REQUIRE_SYNC_REPLICATION=true', async () => {
    for (const [require, status] of [
      ['false', 200],
      ['true', 503],
    ] as const) {
      const api = await startTestApi('replication_none', { env: { IPAM_REQUIRE_SYNC_REPLICATION: require } });
      try {
        const { body } = await verbose(api.app).expect(status);
        expect(body.checks.replication).toMatchObject({
          status: 'failed',
          required: require === 'true',
          synchronousStandbyNames: '',
          synchronousStandbys: 0,
        });
        expect(body.checks.replication.message).toContain('has no synchronous standby');
        if (require === 'true') await api.http().get('/readyz').expect(503);
        else await api.http().get('/readyz').expect(200);
      } finally {
        await api.close();
      }
    }
  });

  describe('with a synchronous standby', () => {
    let primary: PrivatePostgres;
    let standby: PrivatePostgres;
    let app: INestApplication;
    beforeAll(async () => {
      primary = await startPrivatePostgres();
      await runMigrations(primary.url('ipledger'), MIGRATIONS_DIR);
      standby = await primary.standby();
      const admin = await connectPostgres(`${primary.url('postgres')}?sslmode=disable`);
      await admin.query("alter system set synchronous_standby_names = '*'");
      await admin.query('select pg_reload_conf()');
      await admin.end();
      const url = `${primary.url('ipledger')}?sslmode=disable`;
      app = await createApp(
        loadConfig({ DATABASE_URL: url, PORT: '0', IPAM_KUBERNETES_CONSUMER: 'off', IPAM_REQUIRE_SYNC_REPLICATION: 'true' }),
        {
          logger: false,
        },
      );
      await app.listen(0, '127.0.0.1');
    });
    afterAll(async () => {
      await app?.close();
      await standby?.close();
      await primary?.close();
    });

    it('is ready, and says which standby is synchronous', async () => {
      let body: { checks: Record<string, Record<string, unknown>> } = { checks: {} };
      // the standby reports itself synchronous once it has streamed
      for (let i = 0; i < 100; i++) {
        body = (await verbose(app)).body;
        if (body.checks.replication?.status === 'ok') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(body.checks.replication).toMatchObject({
        status: 'ok',
        required: true,
        synchronousStandbyNames: '*',
        standbys: 1,
        synchronousStandbys: 1,
      });
      await request(app.getHttpServer()).get('/readyz').expect(200);
    });
  });
});
