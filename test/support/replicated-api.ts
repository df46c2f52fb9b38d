import type { INestApplication } from '@nestjs/common';
import { connectPostgres, runMigrations } from '@ipledger/event-store';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { listenApi } from './test-api';
import { MIGRATIONS_DIR } from './test-database';

/** One statement on a connection of its own: the servers change under the API, so no pool is kept. */
export async function sql<T>(url: string, text: string): Promise<T[]> {
  const client = await connectPostgres(url);
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

export interface ReplicatedApi {
  primary: PrivatePostgres;
  standby: PrivatePostgres;
  app: INestApplication;
  close(): Promise<void>;
}

export interface ReplicatedApiOptions {
  /** the DATABASE_URL the API is given: the primary alone, or both servers with target_session_attrs */
  databaseUrl(primary: PrivatePostgres, standby: PrivatePostgres): string;
  /** what the primary must be told before the API starts (synchronous_standby_names, say) */
  beforeApi?(primary: PrivatePostgres): Promise<void>;
  env?: NodeJS.ProcessEnv;
}

/**
 * A private primary, migrated, with a streaming standby of it, and the API in this process on
 * them. A piece that fails to start stops the ones before it.
 */
export async function startReplicatedApi(options: ReplicatedApiOptions): Promise<ReplicatedApi> {
  const started: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const piece of started.reverse()) await piece.close();
    started.length = 0;
  };
  try {
    const primary = await startPrivatePostgres();
    started.push(primary);
    await runMigrations(primary.url('ipledger'), MIGRATIONS_DIR);
    const standby = await primary.standby();
    started.push(standby);
    await options.beforeApi?.(primary);
    const app = await listenApi(options.databaseUrl(primary, standby), options.env);
    started.push(app);
    return { primary, standby, app, close };
  } catch (err) {
    await close();
    throw err;
  }
}
