import { rmSync } from 'node:fs';
import { testServers } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const servers = testServers.ipledgerTestServers;
  await servers.nats?.close();
  if (servers.db) {
    await servers.db.stop();
    rmSync(servers.db.dataDir, { recursive: true, force: true });
  }
}
