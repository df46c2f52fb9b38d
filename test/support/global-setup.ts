import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../apps/api/src/embedded-database';
import { startPrivateNats, type PrivateNats } from './private-nats';
import { freePort } from './free-port';

export interface TestServers {
  db?: EmbeddedDatabase;
  nats?: PrivateNats;
}

/** what the teardown stops: global setup and teardown run in jest's parent process, as separate modules */
export const testServers = globalThis as typeof globalThis & { ipledgerTestServers: TestServers };

/**
 * Before any suite: a PostgreSQL and a NATS server of this run's own, so `npm test` needs no running
 * server. TEST_DATABASE_URL (the `postgres` database of a server) and TEST_NATS_URL use existing ones instead.
 */
export default async function globalSetup(): Promise<void> {
  testServers.ipledgerTestServers = {};
  if (!process.env.TEST_DATABASE_URL) {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipledger-test-pg-'));
    chmodSync(dataDir, 0o755); // run as root, the server runs as `postgres`, which must reach its cluster
    const db = await startEmbeddedDatabase({ dataDir, port: await freePort(), durable: false, log: () => undefined });
    testServers.ipledgerTestServers.db = db;
    process.env.TEST_DATABASE_URL = db.url('postgres');
  }
  if (!process.env.TEST_NATS_URL) {
    const nats = await startPrivateNats();
    testServers.ipledgerTestServers.nats = nats;
    process.env.TEST_NATS_URL = nats.url;
  }
}
