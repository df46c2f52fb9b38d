/**
 * The database has applied migrations this release does not have: a newer release migrated it.
 * Migrations only go forward (none is ever undone), so this release does not start on it, nor
 * migrate it: that would be a rollback of the code over a schema it has never seen.
 */
export class SchemaAheadError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `the database schema is newer than this release: ${unknown.join(', ')} ${unknown.length === 1 ? 'was' : 'were'} applied by a newer release, ` +
        'and migrations only go forward; run that release or a newer one, or restore the database from a backup taken before the upgrade',
    );
    this.name = 'SchemaAheadError';
  }
}
