import type { Pool } from 'pg';
import type { ReadinessCheck } from './readiness-check';

/** REST allocation needs the database and nothing else: the one check (with the schema's) that readiness waits for. */
export const databaseCheck = (db: Pool): ReadinessCheck => ({
  name: 'database',
  required: true,
  run: () =>
    db.query('SELECT 1').then(
      () => ({ status: 'ok' }),
      () => ({ status: 'failed', message: 'the database is unreachable' }),
    ),
});
