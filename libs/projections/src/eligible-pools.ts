import { DomainError, filterEligible, type Exclusion, type Labels, type SelectionRule } from '@ipledger/domain';
import { findNode } from './node-queries';
import { findAllPools, findPoolsByLabel, findPoolsByName, findPoolsBySelector, type PoolView } from './pool-queries';
import type { Queryable } from './queryable';

export interface EligiblePools {
  eligible: PoolView[];
  excluded: Exclusion[];
  nodeLabels: Labels;
}

/**
 * The pools a node may allocate from, in the order allocation tries them. Candidates come from
 * the rule (through the labels index where it is a label rule); the always-applied rules
 * (disabled, nodeSelector, family) then say which are eligible and why the others are not.
 */
export async function findEligiblePools(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  families: readonly (4 | 6)[],
): Promise<EligiblePools> {
  const node = await findNode(db, nodeName);
  if (rule.kind === 'matchLabel' && !node) {
    throw new DomainError('NODE_NOT_FOUND', `node "${nodeName}" is unknown: matchLabel=${rule.key} needs the node's labels`);
  }
  const nodeLabels = node?.labels ?? {};
  let candidates: PoolView[];
  const excluded: Exclusion[] = [];
  switch (rule.kind) {
    case 'pools':
      candidates = await findPoolsByName(db, rule.names);
      for (const name of rule.names) {
        if (!candidates.some((pool) => pool.name === name)) excluded.push({ pool: name, reason: 'not found' });
      }
      break;
    case 'poolSelector':
      candidates = await findPoolsBySelector(db, rule.selector);
      break;
    case 'matchLabel': {
      const value = nodeLabels[rule.key];
      if (value === undefined) {
        throw new DomainError('NO_ELIGIBLE_POOL', `node "${nodeName}" has no label "${rule.key}", so matchLabel=${rule.key} selects no pool`);
      }
      candidates = await findPoolsByLabel(db, rule.key, value);
      break;
    }
    case 'all':
      candidates = await findAllPools(db);
      break;
  }
  const result = filterEligible(candidates, nodeLabels, families);
  return { eligible: result.eligible, excluded: [...excluded, ...result.excluded], nodeLabels };
}

/** The text of a NO_ELIGIBLE_POOL refusal: which rule chose nothing, or why each candidate was left out. */
export function noEligiblePoolMessage(rule: SelectionRule, nodeName: string, excluded: readonly Exclusion[]): string {
  const chosenBy =
    rule.kind === 'pools'
      ? `pools [${rule.names.join(', ')}]`
      : rule.kind === 'poolSelector'
        ? `poolSelector "${rule.selector.toString()}"`
        : rule.kind === 'matchLabel'
          ? `matchLabel=${rule.key}`
          : 'every pool';
  if (excluded.length === 0) return `no pool is selected by ${chosenBy} for node "${nodeName}"`;
  return `no pool selected by ${chosenBy} is eligible for node "${nodeName}": ${excluded.map((e) => `${e.pool}: ${e.reason}`).join('; ')}`;
}
