import request from 'supertest';
import { eventually } from '../../../test/support/eventually';
import { sql, startReplicatedApi, type ReplicatedApi } from '../../../test/support/replicated-api';

/**
 * The asynchronous failover, on real servers: the API's cache holds a pool fuller than the standby
 * that gets promoted (it never received the last allocations). After the switch, the API must
 * decide on what the new primary holds: the addresses it lost are free again, so the pool is not
 * "exhausted", and no event is appended past the stream's head.
 */
describe('the aggregate cache across a failover to a standby that missed commits', () => {
  let servers: ReplicatedApi;
  beforeAll(async () => {
    servers = await startReplicatedApi({
      databaseUrl: (primary, standby) =>
        `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/ipledger?target_session_attrs=read-write&sslmode=disable`,
    });
  });
  afterAll(() => servers?.close());

  const allocate = (handle: string) =>
    request(servers.app.getHttpServer())
      .post('/v1/allocations')
      .send({ handle, node: 'n1', namespace: 'ns', pod: handle, pools: ['tiny'] });

  it('reloads from the new primary: what it lost is free again, and no append lands past a stream head', async () => {
    // a /30 without network and broadcast: two addresses
    await request(servers.app.getHttpServer()).post('/v1/pools').send({ name: 'tiny', cidr: '10.77.0.0/30' }).expect(201);
    const first = await allocate('a').expect(201);
    // the standby has everything so far, then hears nothing more (its WAL receiver stopped)
    const [{ lsn }] = await sql<{ lsn: string }>(servers.primary.url('ipledger'), 'select pg_current_wal_lsn()::text as lsn');
    await eventually(
      () => sql<{ caught: boolean }>(servers.standby.url('ipledger'), `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as caught`),
      ([{ caught }]) => caught,
      30_000,
      'the standby to replay the first allocation',
    );
    await sql(servers.standby.url('ipledger'), "alter system set primary_conninfo = ''");
    await sql(servers.standby.url('ipledger'), 'select pg_reload_conf()');
    await eventually(
      () => sql<{ receivers: number }>(servers.standby.url('ipledger'), 'select count(*)::int as receivers from pg_stat_wal_receiver'),
      ([{ receivers }]) => receivers === 0,
      30_000,
      "the standby's WAL receiver to stop",
    );

    const lost = await allocate('b').expect(201);
    // the cache (on the old primary's word) holds a full pool
    await allocate('full').expect(409);
    await servers.primary.stop();
    await servers.standby.promote();

    // the first request may meet a connection that has not heard of the loss yet; the API retries it
    const after = await allocate('c').expect(201);
    expect(after.body.items[0].ip).toBe(lost.body.items[0].ip);
    expect(after.body.items[0].ip).not.toBe(first.body.items[0].ip);

    const versions = await sql<{ version: number }>(
      servers.standby.url('ipledger'),
      "select version from events where stream_id = 'pool-tiny' order by version",
    );
    expect(versions.map((row) => row.version)).toEqual(versions.map((_, i) => i + 1));
    const held = await sql<{ handle: string }>(servers.standby.url('ipledger'), 'select handle from allocations order by handle');
    expect(held.map((row) => row.handle)).toEqual(['a', 'c']);
  });
});
