/**
 * INSERT text for a row object whose keys are the table's column names, and its parameters: the
 * inline projections write the same row objects the batch projector folds, so both derive every
 * column in one place.
 */
export function insertSql(table: string, columns: readonly string[], upsertKey?: readonly string[]): string {
  const insert = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
  if (!upsertKey) return insert;
  const updated = columns.filter((column) => !upsertKey.includes(column));
  return `${insert} ON CONFLICT (${upsertKey.join(', ')}) DO UPDATE SET ${updated.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** node-pg sends a JS array as a Postgres array; a jsonb column wants it as JSON text. */
export function rowParams<R extends object>(row: R, columns: readonly (keyof R)[]): unknown[] {
  return columns.map((column) => (Array.isArray(row[column]) ? JSON.stringify(row[column]) : row[column]));
}
