import { DeleteStatefulSetCommand, ReconcileStatefulSetCommand, InvalidInputError } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { deleteOnce, type ApplyContext } from './apply-context';

/** Annotations on a StatefulSet that choose its pool; without them the server's default rule applies. */
export const POOL_ANNOTATION = 'ipam.ipledger.io/pool';
export const POOL_SELECTOR_ANNOTATION = 'ipam.ipledger.io/pool-selector';

const wholeNumber = (value: unknown, what: string, fallback: number): number => {
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0)
    throw new InvalidInputError('INVALID_ARGUMENT', `StatefulSet ${what} must be a whole number`);
  return value as number;
};

/**
 * Without an annotation, the node-label rule: when the pod template's nodeSelector pins the
 * IPAM_DEFAULT_MATCH_LABEL key to a value, every node the pods may run on has that value, so the
 * range comes from the pools labelled with it. Otherwise the server's default rule applies.
 */
function nodeLabelRule(spec: Record<string, unknown>, key: string | null): string | undefined {
  const template = spec.template as { spec?: { nodeSelector?: Record<string, unknown> } } | undefined;
  const value = key === null ? undefined : template?.spec?.nodeSelector?.[key];
  return typeof value === 'string' ? `${key}=${value}` : undefined;
}

/** Reconciles the reservation to the StatefulSet as it is now (replicas, spec.ordinals.start); deletion releases it. */
export async function applyStatefulSet(
  { commands, metadata, unit, defaultMatchLabel, cluster }: ApplyContext,
  { type, object }: ObjectChange,
): Promise<string> {
  const { name, annotations = {} } = object.metadata;
  const namespace = object.metadata.namespace as string;
  if (type === 'DELETED') {
    return deleteOnce(commands.execute(new DeleteStatefulSetCommand(namespace, name, metadata, unit, cluster)), 'STATEFULSET_NOT_FOUND');
  }
  const spec = object.spec ?? {};
  const ordinals = (spec.ordinals ?? {}) as { start?: unknown };
  await commands.execute(
    new ReconcileStatefulSetCommand(
      {
        namespace,
        name,
        // Kubernetes defaults replicas to 1 and ordinals to 0
        replicas: wholeNumber(spec.replicas, 'spec.replicas', 1),
        ordinalsStart: wholeNumber(ordinals.start, 'spec.ordinals.start', 0),
        pool: annotations[POOL_ANNOTATION] || undefined,
        poolSelector:
          annotations[POOL_SELECTOR_ANNOTATION] || (annotations[POOL_ANNOTATION] ? undefined : nodeLabelRule(spec, defaultMatchLabel)),
      },
      metadata,
      unit,
      cluster,
    ),
  );
  return 'reconciled';
}
