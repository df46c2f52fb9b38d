import type { LabelSelector } from '@ipledger/domain';

/**
 * Translates a label selector into a WHERE clause over a jsonb labels column. Positive
 * requirements become `@>` / `?` tests that the GIN index on labels answers; negative ones only
 * narrow what the index found (a selector made only of negations has to scan).
 */
export function labelSelectorSql(selector: LabelSelector, column: string, params: unknown[]): string {
  const add = (value: unknown) => `$${params.push(value)}`;
  const has = (key: string, value: string) => `${column} @> ${add(JSON.stringify({ [key]: value }))}::jsonb`;
  const clauses = selector.requirements.map((r) => {
    switch (r.operator) {
      case '=':
        return has(r.key, r.values[0]);
      case '!=':
        return `NOT (${has(r.key, r.values[0])})`;
      case 'in':
        return `(${r.values.map((v) => has(r.key, v)).join(' OR ')})`;
      case 'notin':
        return `NOT (${r.values.map((v) => has(r.key, v)).join(' OR ')})`;
      case 'exists':
        return `${column} ? ${add(r.key)}`;
      case 'doesnotexist':
        return `NOT (${column} ? ${add(r.key)})`;
    }
  });
  return clauses.length ? clauses.join(' AND ') : 'TRUE';
}
