import { prepared } from '@ipledger/event-store';
import {
  DEFAULT_CLUSTER,
  DomainError,
  explainPool,
  filterEligible,
  networkExclusion,
  type AllocatingCluster,
  type Exclusion,
  type Labels,
  type SelectionRule,
} from '@ipledger/domain';
import { findClusterLabels } from './cluster-queries';
import { findNode, type NodeView } from './node-queries';
import { allocationSpaceSql, findPoolsByName, listPools, type PoolFilter, type PoolView } from './pool-queries';
import type { Queryable } from './queryable';

/** How the node and the pools a `pools` rule names are read: queries of their own, or what the caller has read already. */
export interface ByNameReads {
  node(name: string): Promise<NodeView | null>;
  pools(names: readonly string[]): Promise<PoolView[]>;
  /** the space of an allocation naming this network (allocationSpaceSql), when the caller has read it; else read on its own */
  space?(network: string): Promise<string | null>;
  /** the labels of the node's cluster (pools' clusterSelector), when the caller has read them; else read on their own */
  clusterLabels?(): Promise<Labels>;
}

const directReads = (db: Queryable, cluster: string): ByNameReads => ({
  node: (name) => findNode(db, name, cluster),
  pools: (names) => findPoolsByName(db, names),
});

/** The space an allocation naming `network` takes its address in: that network when some pool has it, else the shared space (null). */
async function readSpace(db: Queryable, network: string | null, pools: readonly PoolView[], reads: ByNameReads): Promise<string | null> {
  if (network === null) return null;
  // a named pool of the network answers without a read
  if (pools.some((pool) => pool.network === network)) return network;
  if (reads.space) return reads.space(network);
  const { rows } = await db.query<{ space: string | null }>(prepared(`SELECT ${allocationSpaceSql('$1')} AS space`, [network]));
  return rows[0].space;
}

/** The node's cluster with its labels, as the caller read them or on their own (in the same round trip as the node). */
async function readCluster(db: Queryable, cluster: string, reads: ByNameReads): Promise<AllocatingCluster> {
  return { name: cluster, labels: await (reads.clusterLabels ? reads.clusterLabels() : findClusterLabels(db, cluster)) };
}

export interface EligiblePools {
  eligible: PoolView[];
  excluded: Exclusion[];
}

/** The rule as a filter over pools; `matchLabel` reads the node's value inside the page query. */
function candidateFilter(rule: Exclude<SelectionRule, { kind: 'pools' }>, nodeName: string, cluster: string): PoolFilter {
  switch (rule.kind) {
    case 'poolSelector':
      return { labelSelector: rule.selector };
    case 'matchLabel':
      return { sameLabelAs: { node: nodeName, cluster, key: rule.key } };
    case 'all':
      return {};
  }
}

/** The node's labels; matchLabel needs them, so an unknown node is refused there (404). */
function nodeLabels(rule: SelectionRule, nodeName: string, node: NodeView | null): Labels {
  if (rule.kind === 'matchLabel' && !node) {
    throw new DomainError('NODE_NOT_FOUND', `node "${nodeName}" is unknown: matchLabel=${rule.key} needs the node's labels`);
  }
  return node?.labels ?? {};
}

function checkNode(rule: SelectionRule, nodeName: string, node: NodeView | null): Labels {
  const labels = nodeLabels(rule, nodeName, node);
  if (rule.kind === 'matchLabel' && !Object.hasOwn(labels, rule.key)) {
    throw new DomainError('NO_ELIGIBLE_POOL', `node "${nodeName}" has no label "${rule.key}", so matchLabel=${rule.key} selects no pool`);
  }
  return labels;
}

/**
 * The pools a node may allocate from, page by page in the order allocation tries them, so a
 * caller that finds a free address on the first page never reads the rest. Candidates come from
 * the rule through the labels index, in the address space of the request's `network` (the CNI
 * network name; null: none): that network's pools when some pool has it, else the pools of no
 * network. The always-applied rules (family, disabled, nodeSelector, clusterSelector) then say
 * which are eligible and why the others are not.
 */
export async function* eligiblePoolPages(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  families: readonly (4 | 6)[],
  pageSize = 100,
  given?: ByNameReads,
  network: string | null = null,
  /** the node's cluster */
  cluster = DEFAULT_CLUSTER,
): AsyncGenerator<EligiblePools> {
  const reads = given ?? directReads(db, cluster);
  if (rule.kind === 'pools') {
    // the node and the pools are independent: one round trip's wait for both
    const [node, found, inCluster] = await Promise.all([reads.node(nodeName), reads.pools(rule.names), readCluster(db, cluster, reads)]);
    const missing = rule.names.filter((name) => !found.some((pool) => pool.name === name));
    const space = await readSpace(db, network, found, reads);
    const outside = found.flatMap((pool) => {
      const reason = networkExclusion(pool, space);
      return reason ? [{ pool: pool.name, reason }] : [];
    });
    const page = filterEligible(
      found.filter((pool) => networkExclusion(pool, space) === null),
      checkNode(rule, nodeName, node),
      families,
      inCluster,
    );
    yield { eligible: page.eligible, excluded: [...missing.map((pool) => ({ pool, reason: 'not found' })), ...outside, ...page.excluded] };
    return;
  }
  // the space is decided inside the page query (allocationSpaceSql)
  const filter = { ...candidateFilter(rule, nodeName, cluster), spaceOf: network };
  const [node, first, inCluster] = await Promise.all([
    reads.node(nodeName),
    listPools(db, { filter, limit: pageSize }),
    readCluster(db, cluster, reads),
  ]);
  const nodeLabels = checkNode(rule, nodeName, node);
  let page = first;
  for (;;) {
    yield filterEligible(page.items, nodeLabels, families, inCluster);
    if (!page.continue) return;
    page = await listPools(db, { filter, limit: pageSize, continue: page.continue });
  }
}

/** Every eligible pool at once (GET /v1/nodes/{name}/pools). */
export async function findEligiblePools(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  families: readonly (4 | 6)[],
  reads?: ByNameReads,
  network: string | null = null,
  cluster = DEFAULT_CLUSTER,
): Promise<EligiblePools> {
  const all: EligiblePools = { eligible: [], excluded: [] };
  for await (const page of eligiblePoolPages(db, rule, nodeName, families, 1000, reads, network, cluster)) {
    all.eligible.push(...page.eligible);
    all.excluded.push(...page.excluded);
  }
  return all;
}

/**
 * One pool asked about by name (explain=true&pool=), whatever would leave it out: the rule too,
 * which the list's candidates never show, and room. Read by name with the node, as a `pools` rule
 * reads them; 404 POOL_NOT_FOUND when there is no such pool. `eligible` holds it when allocation
 * would take an address of it, `excluded` with every reason otherwise.
 */
export async function explainPoolForNode(
  db: Queryable,
  rule: SelectionRule,
  nodeName: string,
  poolName: string,
  families: readonly (4 | 6)[],
  given?: ByNameReads,
  network: string | null = null,
  cluster = DEFAULT_CLUSTER,
): Promise<EligiblePools> {
  const reads = given ?? directReads(db, cluster);
  const [node, [pool], inCluster] = await Promise.all([reads.node(nodeName), reads.pools([poolName]), readCluster(db, cluster, reads)]);
  if (!pool) throw new DomainError('POOL_NOT_FOUND', `pool "${poolName}" does not exist`);
  const space = await readSpace(db, network, [pool], reads);
  // a node without the rule's label is one more reason, said of the pool, rather than a refusal
  const excluded = explainPool(
    rule,
    pool,
    { name: nodeName, labels: nodeLabels(rule, nodeName, node), cluster: inCluster },
    families,
    space,
  );
  return excluded ? { eligible: [], excluded: [excluded] } : { eligible: [pool], excluded: [] };
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
  // every pool is a candidate of that rule: none at all means none exists
  if (excluded.length === 0 && rule.kind === 'all') return 'there are no pools yet: create one with POST /v1/pools (or an IPPool object)';
  if (excluded.length === 0) return `no pool is selected by ${chosenBy} for node "${nodeName}"`;
  return `no pool selected by ${chosenBy} is eligible for node "${nodeName}": ${excluded.map((e) => `${e.pool}: ${e.reason}`).join('; ')}`;
}
