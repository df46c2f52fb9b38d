import { InvalidInputError } from '../errors/domain-error';
import { LabelSelector, validateDns1123Label, validateLabelKey } from '../labels';

/** How a request picks its candidate pools, before the always-applied eligibility rules. */
export type SelectionRule =
  | { kind: 'pools'; names: string[] }
  | { kind: 'poolSelector'; selector: LabelSelector }
  | { kind: 'matchLabel'; key: string }
  | { kind: 'all' };

export interface SelectionInput {
  pools?: string[];
  poolSelector?: string;
  matchLabel?: string;
}

export function selectionRule(input: SelectionInput, defaultMatchLabel: string | null): SelectionRule {
  const given = (['pools', 'poolSelector', 'matchLabel'] as const).filter((field) => input[field] !== undefined);
  if (given.length > 1) {
    throw new InvalidInputError('INVALID_ARGUMENT', `give at most one of pools, poolSelector, matchLabel (got ${given.join(', ')})`);
  }
  if (input.pools !== undefined) {
    if (input.pools.length === 0) throw new InvalidInputError('INVALID_ARGUMENT', 'pools must name at least one pool');
    input.pools.forEach((name) => validateDns1123Label(name, 'pool name'));
    return { kind: 'pools', names: [...new Set(input.pools)] };
  }
  if (input.poolSelector !== undefined) return { kind: 'poolSelector', selector: LabelSelector.parse(input.poolSelector) };
  const key = input.matchLabel ?? defaultMatchLabel;
  if (key !== null) {
    validateLabelKey(key);
    return { kind: 'matchLabel', key };
  }
  return { kind: 'all' };
}
