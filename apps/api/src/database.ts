import { embeddedDatabaseConfig } from './config';
import { startEmbeddedDatabase } from './embedded-database';

export interface OpenedDatabase {
  /** the environment with DATABASE_URL set */
  env: NodeJS.ProcessEnv;
  /** stops the embedded server this process started; nothing for DATABASE_URL */
  close(): Promise<void>;
  /** the embedded server, not DATABASE_URL */
  embedded: boolean;
}

/** DATABASE_URL as given, or the embedded server's `ipledger` database (started here when nobody runs it). */
export async function openDatabase(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<OpenedDatabase> {
  const embedded = embeddedDatabaseConfig(env);
  if (!embedded) return { env, close: () => Promise.resolve(), embedded: false };
  const db = await startEmbeddedDatabase({ ...embedded, durable: true, log });
  log(
    `DATABASE_URL is not set: using the embedded PostgreSQL on 127.0.0.1:${db.port}, data in ${db.dataDir} ` +
      `(set DATABASE_URL, e.g. postgres://host:5432/ipledger with PGUSER and PGPASSWORD, to use a server of your own)`,
  );
  return { env: { ...env, DATABASE_URL: db.url('ipledger') }, close: () => db.stop(), embedded: true };
}
