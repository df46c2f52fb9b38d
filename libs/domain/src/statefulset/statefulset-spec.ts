import type { StatefulSetSpec } from '../commands/reconcile-statefulset.command';
import { validateClusterName } from '../cluster/cluster-name';
import { InvalidInputError } from '../errors/domain-error';
import { validateDns1123Label, validateDns1123Subdomain } from '../labels';
import { selectionRule, type SelectionRule } from '../selection/selection-rule';

export interface ValidStatefulSetSpec {
  /** the cluster whose StatefulSet it is (two clusters may each have `namespace/name`) */
  cluster: string;
  namespace: string;
  name: string;
  replicas: number;
  ordinalsStart: number;
  rule: SelectionRule;
  /** '' when none was given: no node labels, so pools with a nodeSelector are not eligible */
  node: string;
}

/** Kubernetes caps nothing lower; this keeps a range within what one reservation should hold. */
export const MAX_REPLICAS = 65_536;

/** spec.ordinals.start is an int32 in Kubernetes. */
export const MAX_ORDINALS_START = 2_147_483_647;

function count(value: number, field: string, max: number): number {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new InvalidInputError('INVALID_ARGUMENT', `${field} must be an integer from 0 to ${max} (got ${value})`);
  }
  return value;
}

export function parseStatefulSetSpec(spec: StatefulSetSpec, defaultMatchLabel: string | null, cluster: string): ValidStatefulSetSpec {
  validateClusterName(cluster);
  validateDns1123Label(spec.namespace, 'namespace');
  validateDns1123Subdomain(spec.name, 'StatefulSet name');
  if (spec.node !== undefined) validateDns1123Subdomain(spec.node, 'node name');
  const rule = selectionRule(
    { pools: spec.pool === undefined ? undefined : [spec.pool], poolSelector: spec.poolSelector, matchLabel: spec.matchLabel },
    // the default matchLabel needs a node to read the label from
    spec.node === undefined ? null : defaultMatchLabel,
  );
  if (rule.kind === 'matchLabel' && spec.node === undefined) {
    throw new InvalidInputError('INVALID_ARGUMENT', `matchLabel=${rule.key} needs node: the pools are chosen by that node's label`);
  }
  const replicas = count(spec.replicas, 'replicas', MAX_REPLICAS);
  const ordinalsStart = count(spec.ordinalsStart ?? 0, 'ordinalsStart', MAX_ORDINALS_START);
  // the last pod's ordinal is an int32 too: Kubernetes names no pod past it
  if (replicas > 0 && ordinalsStart + replicas - 1 > MAX_ORDINALS_START) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `ordinalsStart ${ordinalsStart} with ${replicas} replicas runs past ordinal ${MAX_ORDINALS_START} (an int32, Kubernetes' limit): ` +
        `the last pod would be ${ordinalsStart + replicas - 1}; ordinalsStart + replicas may be at most ${MAX_ORDINALS_START + 1}`,
    );
  }
  return {
    cluster,
    namespace: spec.namespace,
    name: spec.name,
    replicas,
    ordinalsStart,
    rule,
    node: spec.node ?? '',
  };
}
