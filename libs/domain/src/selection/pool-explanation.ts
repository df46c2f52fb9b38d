import type { Labels } from '../labels';
import { eligibilityReasons, networkExclusion, type AllocatingCluster, type Exclusion, type PoolCandidate } from './pool-eligibility';
import type { SelectionRule } from './selection-rule';

/** A pool asked about by name (GET /v1/nodes/{name}/pools?explain=true&pool=), with what the rules read of it. */
export interface ExplainedPool extends PoolCandidate {
  labels: Labels;
  network?: string | null;
  /** addresses neither allocated nor reserved (a decimal string: an IPv6 pool's count exceeds a number) */
  free: string;
}

export interface ExplainedNode {
  name: string;
  labels: Labels;
  /** the node's cluster */
  cluster: AllocatingCluster;
}

/**
 * Why the request's rule does not make the pool a candidate, or null when it does. The list of
 * eligible pools never shows these (its candidates come from the rule through the labels index),
 * so they are said only of a pool asked about by name.
 */
export function ruleExclusion(rule: SelectionRule, pool: ExplainedPool, node: Omit<ExplainedNode, 'cluster'>): string | null {
  switch (rule.kind) {
    case 'all':
      return null;
    case 'pools':
      return rule.names.includes(pool.name) ? null : `not among the pools the rule names: pools [${rule.names.join(', ')}]`;
    case 'poolSelector':
      return rule.selector.matches(pool.labels) ? null : `poolSelector "${rule.selector.toString()}" does not match the pool's labels`;
    case 'matchLabel': {
      const { key } = rule;
      if (!Object.hasOwn(node.labels, key))
        return `matchLabel=${key}: node "${node.name}" has no label ${key}, so the rule chooses no pool`;
      const wanted = node.labels[key];
      if (!Object.hasOwn(pool.labels, key)) return `matchLabel=${key}: the pool has no label ${key} (the node's is "${wanted}")`;
      return pool.labels[key] === wanted
        ? null
        : `matchLabel=${key}: the pool's ${key} is "${pool.labels[key]}", the node's is "${wanted}"`;
    }
  }
}

/**
 * Everything that keeps allocation for `node` from taking an address of `pool`, in the order it
 * is decided: the rule, the network's address space (`space`, see networkExclusion), the
 * always-applied rules (family, disabled, nodeSelector, clusterSelector), then room (no free
 * address). Null: allocation would try it and find an address.
 */
export function explainPool(
  rule: SelectionRule,
  pool: ExplainedPool,
  node: ExplainedNode,
  families: readonly (4 | 6)[],
  space: string | null = null,
): Exclusion | null {
  const reasons = [
    ruleExclusion(rule, pool, node),
    networkExclusion(pool, space),
    ...eligibilityReasons(pool, node.labels, families, node.cluster),
    BigInt(pool.free) === 0n ? 'exhausted: no free address (every address is allocated or reserved)' : null,
  ].filter((reason): reason is string => reason !== null);
  return reasons.length ? { pool: pool.name, reason: reasons.join('; ') } : null;
}
