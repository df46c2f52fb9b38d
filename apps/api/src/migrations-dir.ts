import { join } from 'node:path';
import { findUpwards } from './find-upwards';

/** The repository's migrations/ folder, found upwards from the sources (tests) or from dist/ (built). */
export const MIGRATIONS_DIR =
  process.env.IPAM_MIGRATIONS_DIR ?? findUpwards(__dirname, 'migrations', '001_event_store.sql') ?? join(process.cwd(), 'migrations');
