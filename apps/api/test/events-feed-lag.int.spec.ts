import { Client } from 'pg';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { eventually } from '../../../test/support/eventually';

/**
 * GET /v1/events stops below the oldest transaction running anywhere on the server (so that no
 * event can ever appear behind a reader's cursor). A transaction left open holds the feed back:
 * /metrics says by how much.
 */
describe('events feed lag', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('events_feed_lag');
  });
  afterAll(async () => {
    await api.close();
  });

  const gauge = async (name: string) => {
    const text = (await api.http().get('/metrics').expect(200)).text;
    const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return match ? Number(match[1]) : null;
  };
  const poolEvents = async () => (await api.http().get('/v1/events?streamId=pool-held&limit=10').expect(200)).body.items as unknown[];

  it('shows in /metrics the events a long transaction holds back, and serves them once it ends', async () => {
    const long = new Client({ connectionString: api.db.url });
    await long.connect();
    await long.query('BEGIN');
    await long.query('SELECT pg_current_xact_id()');
    try {
      await api.http().post('/v1/pools').send({ name: 'held', cidr: '10.80.0.0/24' }).expect(201);
      expect(await poolEvents()).toEqual([]);
      expect(await gauge('ipledger_events_feed_held_back_events')).toBeGreaterThanOrEqual(1);
      expect(await gauge('ipledger_events_feed_lag_seconds')).toBeGreaterThan(0);
    } finally {
      await long.query('COMMIT');
      await long.end();
    }
    // other suites share the server: their transactions may hold the feed a moment longer
    expect(await eventually(poolEvents, (items) => items.length === 1, 30_000)).toHaveLength(1);
  });
});
