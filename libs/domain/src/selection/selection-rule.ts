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

/** Which rule chose a request's candidate pools, first to last in precedence. */
export const SELECTION_SOURCES = ['pod-annotation', 'namespace-annotation', 'request', 'server-default'] as const;
export type SelectionSource = (typeof SELECTION_SOURCES)[number];

export interface Selection {
  rule: SelectionRule;
  source: SelectionSource;
  /** the families the pod's or namespace's annotation asks for; null: the request's */
  families: (4 | 6)[] | null;
}

/** What one object's pool annotations say (parsed in pool-annotations.ts); null parts were not annotated. */
export interface PoolAnnotations {
  rule: SelectionRule | null;
  families: (4 | 6)[] | null;
  /** by CNI network name */
  networks: ReadonlyMap<string, SelectionRule>;
}

/** The pool annotations of a pod and of its namespace, as the Kubernetes consumer last applied them. */
export interface AnnotatedPod {
  pod: PoolAnnotations | null;
  namespace: PoolAnnotations | null;
}

/**
 * The precedence of pool choice: the pod's annotation, then its namespace's, then the request's
 * own rule (the CNI config's), then the server default. On each object, the `networks` entry for
 * the request's network wins over its plain annotations. The request's rule is checked even when
 * an annotation wins: a malformed request is refused as such.
 */
export function chooseSelection(
  input: SelectionInput & { network?: string },
  annotated: AnnotatedPod | null,
  defaultMatchLabel: string | null,
): Selection {
  const requested = selectionRule(input, defaultMatchLabel);
  const levels = [
    { source: 'pod-annotation', annotations: annotated?.pod },
    { source: 'namespace-annotation', annotations: annotated?.namespace },
  ] as const;
  const families = levels.find((level) => level.annotations?.families)?.annotations?.families ?? null;
  for (const { source, annotations } of levels) {
    const rule = (input.network !== undefined ? annotations?.networks.get(input.network) : undefined) ?? annotations?.rule;
    if (rule) return { rule, source, families };
  }
  const given = input.pools !== undefined || input.poolSelector !== undefined || input.matchLabel !== undefined;
  return { rule: requested, source: given ? 'request' : 'server-default', families };
}
