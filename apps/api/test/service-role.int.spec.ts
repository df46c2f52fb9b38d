import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';
import { readSnapshot, writeSnapshot } from '@ipledger/event-store';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { eventually } from '../../../test/support/eventually';

/**
 * The API as a least-privilege role (migration 008, docs/operations.md "Database roles"): migrations as the
 * owner, the service as a member of ipledger_service, which cannot change the event log.
 */
describe('the API as the ipledger_service role', () => {
  const role = `ipledger_t_api_${randomBytes(4).toString('hex')}`;
  let db: TestDatabase;
  let serviceUrl: string;
  let service: Pool;
  let app: INestApplication;

  beforeAll(async () => {
    db = await createTestDatabase('service-role');
    // a password, since servers other than the machine's (the embedded one) ask for one
    const password = randomBytes(12).toString('hex');
    await db.pool.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' IN ROLE ipledger_service`);
    const url = new URL(db.url);
    url.username = role;
    url.password = password;
    serviceUrl = url.toString();
    service = new Pool({ connectionString: serviceUrl, max: 2 });
    app = await createApp(
      loadConfig({ DATABASE_URL: serviceUrl, IPAM_MIGRATIONS_DATABASE_URL: db.url, PORT: '0', IPAM_KUBERNETES_CONSUMER: 'off' }),
      { logger: false },
    );
    await app.listen(0, '127.0.0.1');
  });

  afterAll(async () => {
    await app.close();
    await service.end();
    await db.drop();
    const admin = new Client({ connectionString: db.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('connects as the service role, not as the owner', async () => {
    const { rows } = await service.query('SELECT current_user AS me, (SELECT tableowner FROM pg_tables WHERE tablename = $1) AS owner', [
      'events',
    ]);
    expect(rows[0].me).toBe(role);
    expect(rows[0].owner).not.toBe(role);
  });

  it('serves every kind of write through the API', async () => {
    const http = () => request(app.getHttpServer());
    await http()
      .post('/v1/pools')
      .send({ name: 'p', cidr: '10.2.0.0/24', labels: { tier: 'gold' } })
      .expect(201);
    await http()
      .patch('/v1/pools/p')
      .send({ labels: { tier: 'silver' } })
      .expect(200);
    await http()
      .put('/v1/nodes/n')
      .send({ labels: { tier: 'silver' } })
      .expect(200);
    await http().post('/v1/allocations').send({ handle: 'h', node: 'n', namespace: 'ns', pod: 'x', matchLabel: 'tier' }).expect(201);
    await http().put('/v1/statefulsets/ns/web').send({ replicas: 2, pool: 'p' }).expect(200);
    await http().delete('/v1/statefulsets/ns/web').expect(204);
    await http().delete('/v1/allocations/h').expect(204);
    await http().delete('/v1/nodes/n').expect(204);
    const events = await service.query('SELECT count(*)::int AS n FROM events');
    expect(events.rows[0].n).toBeGreaterThanOrEqual(8);
  });

  it('seals the audit chain and writes snapshots with only SELECT and INSERT', async () => {
    const { n } = (await service.query('SELECT count(*)::int AS n FROM events')).rows[0];
    const head = await eventually(
      async () => (await request(app.getHttpServer()).get('/v1/audit/head').expect(200)).body as { count: number },
      (h) => h.count === n,
    );
    expect(head.count).toBe(n);
    await writeSnapshot(service, 'pool-p', 1, { probe: 1 });
    await writeSnapshot(service, 'pool-p', 1, { probe: 2 }); // a replica's second write at that version keeps the first
    expect(await readSnapshot(service, 'pool-p')).toEqual({ version: 1, state: { probe: 1 } });
  });

  it.each([
    ['UPDATE', "UPDATE events SET type = 'Forged'"],
    ['DELETE', 'DELETE FROM events'],
    ['TRUNCATE', 'TRUNCATE events'],
    ['disable the guard triggers', 'ALTER TABLE events DISABLE TRIGGER ALL'],
    ['drop the table', 'DROP TABLE events'],
  ])('is refused by PostgreSQL permissions: %s on events', async (_, sql) => {
    await expect(service.query(sql)).rejects.toMatchObject({ code: '42501' });
    const { rows } = await db.pool.query("SELECT count(*)::int AS n FROM events WHERE type = 'Forged'");
    expect(rows[0].n).toBe(0);
  });

  // each statement would change a row if it were allowed (the owner's run of it, in a rolled-back
  // transaction, proves that): the refusal is the permission, not an empty table
  it.each([
    ['UPDATE on stream_snapshots', "UPDATE stream_snapshots SET state = '{}'"],
    ['DELETE on stream_snapshots', 'DELETE FROM stream_snapshots'],
    ['TRUNCATE on stream_snapshots', 'TRUNCATE stream_snapshots'],
    ["UPDATE on the previous release's snapshots", "UPDATE snapshots SET state = '{}'"],
    ["DELETE on the previous release's snapshots", 'DELETE FROM snapshots'],
    ['INSERT on schema_migrations', "INSERT INTO schema_migrations (name) VALUES ('999_forged.sql')"],
    ['UPDATE on schema_migrations', "UPDATE schema_migrations SET name = name || '.forged'"],
    ['DELETE on schema_migrations', 'DELETE FROM schema_migrations'],
    ['TRUNCATE on schema_migrations', 'TRUNCATE schema_migrations'],
    ['UPDATE on event_links', "UPDATE event_links SET hash = '\\x00'"],
    ['DELETE on event_links', 'DELETE FROM event_links'],
    ['TRUNCATE on event_links', 'TRUNCATE event_links'],
  ])('is refused by PostgreSQL permissions: %s', async (_, sql) => {
    const owner = await db.pool.connect();
    try {
      await owner.query('BEGIN');
      // as the owner, with the append-only triggers out of the way, the statement does change rows
      await owner.query("SET LOCAL session_replication_role = 'replica'");
      await owner.query("INSERT INTO snapshots (stream_id, version, state) VALUES ('probe', 1, '{}') ON CONFLICT DO NOTHING");
      const changed = await owner.query(sql);
      expect(changed.command === 'TRUNCATE' || (changed.rowCount ?? 0) > 0).toBe(true);
    } finally {
      await owner.query('ROLLBACK');
      owner.release();
    }
    await expect(service.query(sql)).rejects.toMatchObject({ code: '42501' });
  });
});
