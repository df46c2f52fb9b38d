import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { violations } from './additive-rule';
import { BASELINE } from './baseline';

const MIGRATIONS = join(__dirname, '../../migrations');

describe('every migration after the baseline is additive (the rolling-update rule)', () => {
  const later = readdirSync(MIGRATIONS)
    .filter((name) => /^\d{3}_.+\.sql$/.test(name) && name > BASELINE)
    .sort();

  it.each(later.length ? later : ['(none yet)'])('%s drops, renames and retypes nothing the previous release uses', (file) => {
    if (file === '(none yet)') return;
    expect(violations(file, readFileSync(join(MIGRATIONS, file), 'utf8'))).toEqual([]);
  });

  it('refuses each kind of breaking change, and lets additions, relaxations and stated contractions through', () => {
    const breaking = `
      ALTER TABLE allocations RENAME COLUMN ip TO address;
      ALTER TABLE pools ALTER COLUMN cidr TYPE cidr USING cidr::cidr;
      ALTER TABLE pools ALTER COLUMN gateway SET NOT NULL, ADD COLUMN vlan integer NOT NULL;
      ALTER TABLE nodes DROP COLUMN labels;
      ALTER TABLE kubernetes_objects DROP CONSTRAINT kubernetes_objects_pkey;
      ALTER TABLE events ALTER COLUMN recorded_at DROP DEFAULT;
      DROP TABLE IF EXISTS snapshots;
      DROP INDEX allocations_pool;
      DROP FUNCTION events_link_hash(text);
      ALTER VIEW v RENAME TO w;
      DO $$ BEGIN DROP TABLE statefulsets; END $$;`;
    expect(violations('broken.sql', breaking).map((v) => v.why)).toEqual([
      'table allocations: RENAME COLUMN ip TO address',
      "pools: changes a column's type (ALTER COLUMN cidr TYPE cidr USING cidr::cidr)",
      'pools: makes an existing column NOT NULL',
      'pools: adds a NOT NULL column without a default, which older INSERTs leave out',
      'nodes: DROP COLUMN labels',
      'kubernetes_objects: DROP CONSTRAINT kubernetes_objects_pkey',
      'events: drops a default older INSERTs rely on',
      'drops table snapshots',
      'drops index allocations_pool',
      'drops function events_link_hash',
      'view v: RENAME TO w',
      'drops table statefulsets',
    ]);
    const additive = `
      -- a comment that says DROP TABLE pools; is not a statement
      CREATE TABLE pool_status (pool text PRIMARY KEY, note text NOT NULL);
      ALTER TABLE pool_status ADD COLUMN since timestamptz NOT NULL, DROP COLUMN note;
      CREATE INDEX pool_status_since ON pool_status (since);
      DROP INDEX pool_status_since;
      ALTER TABLE kubernetes_syncs ADD COLUMN received_at timestamptz NOT NULL DEFAULT now();
      ALTER TABLE events ALTER COLUMN hash DROP NOT NULL, ADD COLUMN note text;
      DROP TRIGGER events_chain ON events;
      INSERT INTO audit (why) VALUES ('DROP TABLE pools; ALTER TABLE x RENAME TO y');
      CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $f$ BEGIN DROP TABLE scratch; END $f$;
      -- contract: nothing reads snapshots since 0.2.0 (stream_snapshots replaced it), and 0.2.0 is the previous release
      DROP TABLE snapshots;`;
    expect(violations('additive.sql', additive)).toEqual([]);
  });
});
