import type { StatefulSetSpec } from '../commands/reconcile-statefulset.command';
import { ValidationError } from '../errors/domain-error';
import { validateDns1123Label, validateDns1123Subdomain } from '../labels';
import { selectionRule, type SelectionRule } from '../selection/selection-rule';

export interface ValidStatefulSetSpec {
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
    throw new ValidationError('INVALID_ARGUMENT', `${field} must be an integer from 0 to ${max} (got ${value})`);
  }
  return value;
}

export function parseStatefulSetSpec(spec: StatefulSetSpec, defaultMatchLabel: string | null): ValidStatefulSetSpec {
  validateDns1123Label(spec.namespace, 'namespace');
  validateDns1123Subdomain(spec.name, 'StatefulSet name');
  if (spec.node !== undefined) validateDns1123Subdomain(spec.node, 'node name');
  const rule = selectionRule(
    { pools: spec.pool === undefined ? undefined : [spec.pool], poolSelector: spec.poolSelector, matchLabel: spec.matchLabel },
    // the default matchLabel needs a node to read the label from
    spec.node === undefined ? null : defaultMatchLabel,
  );
  if (rule.kind === 'matchLabel' && spec.node === undefined) {
    throw new ValidationError('INVALID_ARGUMENT', `matchLabel=${rule.key} needs node: the pools are chosen by that node's label`);
  }
  return {
    namespace: spec.namespace,
    name: spec.name,
    replicas: count(spec.replicas, 'replicas', MAX_REPLICAS),
    ordinalsStart: count(spec.ordinalsStart ?? 0, 'ordinalsStart', MAX_ORDINALS_START),
    rule,
    node: spec.node ?? '',
  };
}
