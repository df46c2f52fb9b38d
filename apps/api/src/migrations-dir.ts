import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The repository's migrations/ folder, found upwards from the sources (tests) or from dist/ (built). */
function findMigrations(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, '001_event_store.sql'))) return candidate;
    if (dirname(dir) === dir) return join(process.cwd(), 'migrations');
  }
}

export const MIGRATIONS_DIR = process.env.IPAM_MIGRATIONS_DIR ?? findMigrations(__dirname);
