import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** migrations/ at the repository root, from the sources (tests) or from dist/apps/api (built). */
export const MIGRATIONS_DIR = [join(__dirname, '../../../migrations'), join(__dirname, '../../../../migrations')].find((dir) =>
  existsSync(join(dir, '001_event_store.sql')),
) ?? join(process.cwd(), 'migrations');
