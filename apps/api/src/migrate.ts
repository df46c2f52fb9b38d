import { runMigrations } from '@ipledger/event-store';
import { loadConfig } from './config';
import { MIGRATIONS_DIR } from './migrations-dir';

/** `npm run migrate`: apply pending migrations and exit. */
runMigrations(loadConfig().migrationsDatabaseUrl, MIGRATIONS_DIR, (line) => console.log(line))
  .then((applied) => console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply'))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
