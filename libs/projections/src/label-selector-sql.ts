import type { LabelSelector, Requirement } from '@ipledger/domain';

/** The positive requirement to drive a selection from, most selective first (`=`, then `in`, then exists). */
export function drivingRequirement(selector: LabelSelector): Requirement | null {
  for (const operator of ['=', 'in', 'exists'] as const) {
    const found = selector.requirements.find((r) => r.operator === operator);
    if (found) return found;
  }
  return null;
}

/** `pool_labels` rows of one requirement, as a condition on alias `l` (values bound into `values`). */
export function labelRowsSql(r: Requirement, l: string, values: unknown[]): string {
  const key = `${l}.key = $${values.push(r.key)}`;
  switch (r.operator) {
    case '=':
    case '!=':
      return `${key} AND ${l}.value = $${values.push(r.values[0])}`;
    case 'in':
    case 'notin':
      return `${key} AND ${l}.value = ANY($${values.push(r.values)}::text[])`;
    case 'exists':
    case 'doesnotexist':
      return key;
  }
}

const NEGATIVE = new Set(['!=', 'notin', 'doesnotexist']);

/**
 * Every requirement as one condition on the pool named by `poolColumn`, whatever their number:
 * the requirements travel as one JSON parameter and a single correlated subquery walks them, one
 * lookup in pool_labels' primary key each. One clause per requirement instead made the planner's
 * work grow faster than linearly (161 requirements took seconds) and overflowed its stack.
 * Kubernetes semantics: a positive requirement needs a matching label, a negative one (`!=`,
 * `notin`, `!key`) holds when there is none, so also when the key is absent.
 */
export function requirementsSql(requirements: readonly Requirement[], poolColumn: string, values: unknown[]): string {
  const rows = requirements.map((r) => ({
    key: r.key,
    negative: NEGATIVE.has(r.operator),
    values: r.operator === 'exists' || r.operator === 'doesnotexist' ? null : r.values,
  }));
  return `NOT EXISTS (
    SELECT 1 FROM jsonb_to_recordset($${values.push(JSON.stringify(rows))}::jsonb) AS q(key text, negative boolean, "values" text[])
    WHERE q.negative = EXISTS (SELECT 1 FROM pool_labels r WHERE r.pool = ${poolColumn} AND r.key = q.key
                                AND (q."values" IS NULL OR r.value = ANY (q."values"))))`;
}
