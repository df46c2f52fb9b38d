import { runMigrations } from '@ipledger/event-store';
import { join } from 'node:path';
import { call, startApiProcess, type ApiProcess } from '../support/api-process';
import { databaseUrl, dropDatabase, MIGRATIONS_DIR, uniqueDatabaseName } from '../support/test-database';
import { checkOutPreviousRelease, drive, previousRelease, READS, TEARDOWN, WORKLOAD } from './previous-release';

/**
 * A rolling update runs the previous release's replicas on the schema this release migrated
 * (docs/kubernetes.md, "Upgrades"). So, as in a cluster: start the previous release's API from its
 * own sources (git archive) on its own schema, migrate the database under it with this tree's
 * migrations (the Job), and drive every kind of write and read through it. A migration that breaks
 * that SQL (a column renamed or made NOT NULL...) fails here with the old code's 500s. (A previous
 * release *started* on the newer schema is a rollback, which it refuses: newer-schema.int.spec.ts.)
 */
describe('the previous release on this release schema', () => {
  const name = uniqueDatabaseName('previous-release');
  const url = databaseUrl(name);
  const ref = previousRelease();
  const tree = checkOutPreviousRelease(ref);
  let api: ApiProcess;

  beforeAll(async () => {
    // the replicas run before the upgrade, ready on their own schema; then the Job migrates
    await runMigrations(url, join(tree.root, 'migrations'));
    api = await startApiProcess(url, { from: 'source', root: tree.root });
    await runMigrations(url, MIGRATIONS_DIR);
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await dropDatabase(name);
    tree.remove();
  });

  it(`serves writes and reads as it did (previous release ${ref.slice(0, 12)})`, async () => {
    const reads = READS.map((path): [string, string] => ['GET', path]);
    const failed = await drive(api.base, [...WORKLOAD, ...reads, ...TEARDOWN]);
    expect(failed).toEqual([]);
    expect((await call(api.base, 'GET', '/readyz')).status).toBe(200);
  });
});
