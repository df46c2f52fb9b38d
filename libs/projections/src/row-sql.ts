/**
 * INSERT text for a row object whose keys are the table's column names, and its parameters: the
 * inline projections write the same row objects the batch projector folds, so both derive every
 * column in one place.
 */
export function insertSql(table: string, columns: readonly string[], upsertKey?: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})${upsert(columns, upsertKey)}`;
}

/**
 * insertSql for many row objects in one statement, as one JSON parameter (`$1`, see rowsParam)
 * read with the table's own row type. With an upsert key, each key at most once.
 */
export function insertRowsSql(table: string, columns: readonly string[], upsertKey?: readonly string[]): string {
  const list = columns.join(', ');
  return `INSERT INTO ${table} (${list}) SELECT ${list} FROM json_populate_recordset(NULL::${table}, $1::json)${upsert(columns, upsertKey)}`;
}

function upsert(columns: readonly string[], upsertKey?: readonly string[]): string {
  if (!upsertKey) return '';
  const updated = columns.filter((column) => !upsertKey.includes(column));
  return ` ON CONFLICT (${upsertKey.join(', ')}) DO UPDATE SET ${updated.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** node-pg sends a JS array as a Postgres array; a jsonb column wants it as JSON text. */
export function rowParams<R extends object>(row: R, columns: readonly (keyof R)[]): unknown[] {
  return columns.map((column) => (Array.isArray(row[column]) ? JSON.stringify(row[column]) : row[column]));
}
