import { migrationState, SchemaAheadError, type MigrationState } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { ReadinessCheck } from './readiness-check';

/**
 * With IPAM_MIGRATE=off another step migrates (the Kubernetes Job): until it has, this replica's
 * queries would meet a schema older than its code, so it is not ready. A schema a newer release
 * migrated (a rollback of the code) keeps it not ready too: migrations only go forward. A schema
 * never goes back, so once current it is not read again: a replica that was ready when a newer
 * release's Job migrated stays ready through that release's rolling update (every migration is
 * additive for one release).
 */
export function schemaCheck(db: Pool, migrationsDir: string): ReadinessCheck {
  let current = false;
  return {
    name: 'schema',
    required: true,
    async run() {
      if (current) return { status: 'ok' };
      let state: MigrationState;
      try {
        state = await migrationState(db, migrationsDir);
      } catch {
        return { status: 'failed', message: 'not checked: the database is unreachable' };
      }
      const { pending, unknown } = state;
      if (unknown.length) return { status: 'failed', message: new SchemaAheadError(unknown).message, unknown };
      current = pending.length === 0;
      if (current) return { status: 'ok' };
      return {
        status: 'failed',
        message: `the database schema is behind this release: ${pending.join(', ')} not applied; run \`ipledger migrate\` as the schema owner`,
        pending,
      };
    },
  };
}
