import { DomainError, InvalidInputError } from '../errors/domain-error';
import { selectionRule, type PoolAnnotations, type SelectionInput, type SelectionRule } from './selection-rule';

/** The annotations of a Pod or a Namespace that choose pools (API.md "Pool choice by annotation"). */
export const POOL_ANNOTATIONS = {
  pools: 'ipam.ipledger.io/pools',
  poolSelector: 'ipam.ipledger.io/pool-selector',
  matchLabel: 'ipam.ipledger.io/match-label',
  families: 'ipam.ipledger.io/families',
  networks: 'ipam.ipledger.io/networks',
} as const;

/** Bounds on what an annotation may hold: checked before any parsing work is done on it. */
export const ANNOTATION_LIMITS = {
  /** characters of `pools`, `pool-selector`, `match-label` or `families` */
  value: 4096,
  /** characters of the `networks` JSON */
  networks: 16_384,
  /** names in `pools`, or in one network's `pools` */
  pools: 100,
  /** entries in `networks` */
  networkEntries: 32,
  /** nesting of the `networks` JSON: a list of objects holding lists of names */
  depth: 3,
} as const;

const NETWORK_KEYS = new Set(['network', 'pools', 'poolSelector', 'matchLabel']);
/** The CNI specification's rule for a network name (as the allocation request's `network`). */
const NETWORK_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,252}$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the pool annotations of one object (`what`: "pod shop/web-1"); every other annotation is
 * ignored. Anything malformed is refused whole with INVALID_ANNOTATION naming the object and the
 * annotation: a half-read choice could hand out an address from a pool the object forbids.
 */
export function parsePoolAnnotations(annotations: Readonly<Record<string, unknown>> | undefined, what: string): PoolAnnotations {
  const text = (field: keyof typeof POOL_ANNOTATIONS, limit: number = ANNOTATION_LIMITS.value): string | undefined => {
    const value = annotations?.[POOL_ANNOTATIONS[field]];
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.length > limit) {
      throw invalid(what, field, typeof value === 'string' ? `longer than ${limit} characters` : 'not a string');
    }
    return value;
  };
  const pools = text('pools');
  const input: SelectionInput = {
    ...(pools === undefined ? {} : { pools: splitNames(pools, what) }),
    ...optional('poolSelector', text('poolSelector')),
    ...optional('matchLabel', text('matchLabel')),
  };
  const given = (['pools', 'poolSelector', 'matchLabel'] as const).filter((field) => input[field] !== undefined);
  const families = text('families');
  const networks = text('networks', ANNOTATION_LIMITS.networks);
  return {
    rule: given.length ? asAnnotation(what, given.length === 1 ? given[0] : 'pools', () => selectionRule(input, null)) : null,
    families: families === undefined ? null : parseFamilies(families, what),
    networks: networks === undefined ? new Map() : parseNetworks(networks, what),
  };
}

const optional = <K extends string>(key: K, value: string | undefined) =>
  value === undefined ? {} : ({ [key]: value } as Record<K, string>);

function splitNames(value: string, what: string): string[] {
  const names = value.split(',').map((name) => name.trim());
  if (names.length > ANNOTATION_LIMITS.pools) throw invalid(what, 'pools', `more than ${ANNOTATION_LIMITS.pools} pools`);
  if (names.some((name) => name === '')) throw invalid(what, 'pools', `"${value.slice(0, 64)}" has an empty pool name`);
  return names;
}

function parseFamilies(value: string, what: string): (4 | 6)[] {
  const known: Record<string, (4 | 6)[]> = { '4': [4], '6': [6], '4,6': [4, 6] };
  const families = known[value.replace(/\s/g, '')];
  if (!families) throw invalid(what, 'families', `must be 4, 6 or 4,6 (got "${value.slice(0, 64)}")`);
  return families;
}

function parseNetworks(value: string, what: string): Map<string, SelectionRule> {
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch (err) {
    throw invalid(what, 'networks', `not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(json)) throw invalid(what, 'networks', 'must be a JSON list of {"network", "pools"?, "poolSelector"?, "matchLabel"?}');
  if (json.length > ANNOTATION_LIMITS.networkEntries)
    throw invalid(what, 'networks', `more than ${ANNOTATION_LIMITS.networkEntries} entries`);
  if (deeperThan(json, ANNOTATION_LIMITS.depth)) throw invalid(what, 'networks', `nested deeper than ${ANNOTATION_LIMITS.depth} levels`);
  const networks = new Map<string, SelectionRule>();
  json.forEach((entry: unknown, i) => {
    if (!isRecord(entry)) throw invalid(what, 'networks', `entry ${i} is not an object`);
    const unknown = Object.keys(entry).filter((key) => !NETWORK_KEYS.has(key));
    if (unknown.length)
      throw invalid(what, 'networks', `entry ${i} has unknown field(s) ${unknown.map((k) => JSON.stringify(k.slice(0, 64))).join(', ')}`);
    const { network, pools, poolSelector, matchLabel } = entry;
    if (typeof network !== 'string' || !NETWORK_NAME.test(network)) {
      throw invalid(what, 'networks', `entry ${i}: "network" must be a CNI network name`);
    }
    if (networks.has(network)) throw invalid(what, 'networks', `network "${network}" is listed twice`);
    const fine =
      (pools === undefined ||
        (Array.isArray(pools) && pools.length <= ANNOTATION_LIMITS.pools && pools.every((p) => typeof p === 'string'))) &&
      (poolSelector === undefined || typeof poolSelector === 'string') &&
      (matchLabel === undefined || typeof matchLabel === 'string');
    if (!fine) {
      throw invalid(
        what,
        'networks',
        `entry ${i}: pools must be a list of at most ${ANNOTATION_LIMITS.pools} names, poolSelector and matchLabel strings`,
      );
    }
    const input = { pools, poolSelector, matchLabel } as SelectionInput;
    if (pools === undefined && poolSelector === undefined && matchLabel === undefined) {
      throw invalid(what, 'networks', `entry ${i} (network "${network}") gives none of pools, poolSelector, matchLabel`);
    }
    networks.set(
      network,
      asAnnotation(what, 'networks', () => selectionRule(input, null), `network "${network}": `),
    );
  });
  return networks;
}

/** Whether a parsed JSON value nests deeper than `levels` (`[]` is one level, `[{}]` two); stops one level past the limit. */
function deeperThan(value: unknown, levels: number): boolean {
  const children = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : null;
  if (children === null) return false;
  return levels === 0 || children.some((child) => deeperThan(child, levels - 1));
}

function invalid(what: string, field: keyof typeof POOL_ANNOTATIONS, reason: string): InvalidInputError {
  return new InvalidInputError('INVALID_ANNOTATION', `${what}: annotation ${POOL_ANNOTATIONS[field]}: ${reason}`);
}

/** The selection rule's own refusals (a bad name, selector or label key, two rules at once), as the annotation's. */
function asAnnotation(what: string, field: keyof typeof POOL_ANNOTATIONS, parse: () => SelectionRule, context = ''): SelectionRule {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    const message = err.message.replace(/\bpools, poolSelector, matchLabel\b/, 'pools, pool-selector, match-label');
    throw invalid(what, field, `${context}${message}`);
  }
}
