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
 * A requirement as a condition on the pool named by `poolColumn`: EXISTS for positive ones,
 * NOT EXISTS for negative ones (Kubernetes semantics: `!=` and `notin` hold when the key is absent).
 * Each probe is one lookup in pool_labels' primary key.
 */
export function requirementSql(r: Requirement, poolColumn: string, values: unknown[]): string {
  const probe = `SELECT 1 FROM pool_labels r WHERE r.pool = ${poolColumn} AND ${labelRowsSql(r, 'r', values)}`;
  return `${NEGATIVE.has(r.operator) ? 'NOT ' : ''}EXISTS (${probe})`;
}
