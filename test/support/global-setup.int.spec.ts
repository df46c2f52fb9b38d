import { connect } from 'nats';
import { createTestDatabase } from './test-database';

/**
 * The servers jest's global setup started (or TEST_DATABASE_URL / TEST_NATS_URL) answer: a suite
 * gets a migrated database of its own that takes writes, and a NATS with JetStream.
 */
describe("jest's global setup", () => {
  it('gives a suite a migrated database of its own, and a NATS with JetStream', async () => {
    expect(process.env.TEST_DATABASE_URL).toMatch(/^postgres:\/\//);
    const db = await createTestDatabase(__filename);
    try {
      await db.pool.query('CREATE TABLE probe (n int)');
      await db.pool.query('INSERT INTO probe VALUES (1)');
      expect((await db.pool.query('SELECT n FROM probe')).rows).toEqual([{ n: 1 }]);
      // the migrations ran
      expect((await db.pool.query("SELECT to_regclass('events') AS t")).rows).toEqual([{ t: 'events' }]);
    } finally {
      await db.drop();
    }
    const nc = await connect({ servers: process.env.TEST_NATS_URL });
    try {
      expect((await (await nc.jetstreamManager()).getAccountInfo()).limits).toBeDefined();
    } finally {
      await nc.close();
    }
  });
});
