import { pendingMigrations } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { ReadinessCheck } from './readiness-check';

/**
 * With IPAM_MIGRATE=off another step migrates (the Kubernetes Job): until it has, this replica's
 * queries would meet a schema older than its code, so it is not ready. A schema never goes back,
 * so once current it is not read again.
 */
export function schemaCheck(db: Pool, migrationsDir: string): ReadinessCheck {
  let current = false;
  return {
    name: 'schema',
    required: true,
    async run() {
      if (current) return { status: 'ok' };
      let pending: string[];
      try {
        pending = await pendingMigrations(db, migrationsDir);
      } catch {
        return { status: 'failed', message: 'not checked: the database is unreachable' };
      }
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
