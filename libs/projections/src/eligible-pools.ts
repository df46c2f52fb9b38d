import { DomainError, filterEligible, LabelSelector, type Exclusion, type Labels, type SelectionRule } from '@ipledger/domain';
import { findNode } from './node-queries';
import { findPoolsByName, listPools, type PoolView } from './pool-queries';
import type { Queryable } from './queryable';

export interface EligiblePools {
  eligible: PoolView[];
  excluded: Exclusion[];
}

/** Label rules become one selector over pool labels: `matchLabel=k` is `k=<the node's value>`. */
function candidateSelector(rule: Exclude<SelectionRule, { kind: 'pools' }>, nodeName: string, nodeLabels: Labels): LabelSelector {
  switch (rule.kind) {
    case 'poolSelector':
      return rule.selector;
    case 'matchLabel': {
      const value = nodeLabels[rule.key];
      if (value === undefined) {
        throw new DomainError('NO_ELIGIBLE_POOL', `node "${nodeName}" has no label "${rule.key}", so matchLabel=${rule.key} selects no pool`);
      }
      return LabelSelector.parse(`${rule.key}=${value}`);
    }
    case 'all':
      return LabelSelector.parse('');
  }
}

/**
 * The pools a node may allocate from, page by page in the order allocation tries them, so a
 * caller that finds a free address on the first page never reads the rest. Candidates come from
 * the rule through the labels index; the always-applied rules (family, disabled, nodeSelector)
 * then say which are eligible and why the others are not.
 */
export async function* eligiblePoolPages(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  families: readonly (4 | 6)[],
  pageSize = 100,
): AsyncGenerator<EligiblePools> {
  const node = await findNode(db, nodeName);
  if (rule.kind === 'matchLabel' && !node) {
    throw new DomainError('NODE_NOT_FOUND', `node "${nodeName}" is unknown: matchLabel=${rule.key} needs the node's labels`);
  }
  const nodeLabels = node?.labels ?? {};
  if (rule.kind === 'pools') {
    const found = await findPoolsByName(db, rule.names);
    const missing = rule.names.filter((name) => !found.some((pool) => pool.name === name));
    const page = filterEligible(found, nodeLabels, families);
    yield { eligible: page.eligible, excluded: [...missing.map((pool) => ({ pool, reason: 'not found' })), ...page.excluded] };
    return;
  }
  const labelSelector = candidateSelector(rule, nodeName, nodeLabels);
  let token: string | undefined;
  do {
    const page = await listPools(db, { labelSelector, limit: pageSize, continue: token });
    yield filterEligible(page.items, nodeLabels, families);
    token = page.continue ?? undefined;
  } while (token);
}

/** Every eligible pool at once (GET /v1/nodes/{name}/pools). */
export async function findEligiblePools(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  families: readonly (4 | 6)[],
): Promise<EligiblePools> {
  const all: EligiblePools = { eligible: [], excluded: [] };
  for await (const page of eligiblePoolPages(db, rule, nodeName, families, 1000)) {
    all.eligible.push(...page.eligible);
    all.excluded.push(...page.excluded);
  }
  return all;
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
