import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { eventually } from '../../../test/support/eventually';
import { sql, startReplicatedApi, type ReplicatedApi } from '../../../test/support/replicated-api';
import { startTestApi } from '../../../test/support/test-api';

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
    let servers: ReplicatedApi;
    let app: INestApplication;
    beforeAll(async () => {
      servers = await startReplicatedApi({
        async beforeApi(primary) {
          await sql(`${primary.url('postgres')}?sslmode=disable`, "alter system set synchronous_standby_names = '*'");
          await sql(`${primary.url('postgres')}?sslmode=disable`, 'select pg_reload_conf()');
        },
        databaseUrl: (primary) => `${primary.url('ipledger')}?sslmode=disable`,
        env: { IPAM_REQUIRE_SYNC_REPLICATION: 'true' },
      });
      ({ app } = servers);
    });
    afterAll(() => servers?.close());

    it('is ready, and says which standby is synchronous', async () => {
      // the standby reports itself synchronous once it has streamed
      const body = await eventually(
        async () => (await verbose(app)).body as { checks: Record<string, Record<string, unknown>> },
        (answer) => answer.checks.replication?.status === 'ok',
        10_000,
        'a synchronous standby',
      );
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
