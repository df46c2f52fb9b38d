import {
  CreatePoolsCommand,
  DEFAULT_CLUSTER,
  DeletePoolCommand,
  DomainError,
  parsePoolSpec,
  planPoolApply,
  UpdatePoolCommand,
  InvalidInputError,
} from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { ipPoolHolders } from '@ipledger/projections';
import { deleteOnce, type ApplyContext } from './apply-context';

/**
 * An IPPool object (ipam.ipledger.io/v1alpha1) is the whole pool: spec {cidr, gateway, nodeSelector,
 * clusterSelector, reserved, disabled, reuseDelaySeconds, blockSize, blockAffinity, blockReleaseSeconds, allowSpecialRanges, network}, labels from
 * its metadata. A deleted IPPool whose pool
 * still has addresses, or a cidr the pool cannot take (POOL_IN_USE, POOL_OVERLAP...), is refused,
 * and the refusal is recorded as the object's status. Pools are fleet-wide: an IPPool of one cluster
 * never changes nor deletes a pool another cluster's IPPool holds, nor, outside the default
 * cluster, one the REST API made (see poolOwner).
 */
export async function applyIpPool(
  { commands, db, metadata, unit, findPool, cluster }: ApplyContext,
  { type, object }: ObjectChange,
): Promise<string> {
  const name = object.metadata.name;
  const holders = await ipPoolHolders(db, name);
  if (type === 'DELETED') {
    const owner = holders.includes(cluster) ? null : poolOwner(holders, cluster, (await findPool(name)) !== null);
    if (owner) return `deleted; pool ${name} kept: ${owner} holds it`;
    return deleteOnce(commands.execute(new DeletePoolCommand(name, metadata, unit)), 'POOL_NOT_FOUND');
  }
  const spec = object.spec ?? {};
  const desired = parsePoolSpec({
    name,
    cidr: specField(spec, 'cidr', (v) => typeof v === 'string', 'a string') as string,
    gateway: (specField(spec, 'gateway', (v) => v === undefined || typeof v === 'string', 'a string') as string | undefined) ?? null,
    labels: object.metadata.labels ?? {},
    nodeSelector:
      (specField(spec, 'nodeSelector', (v) => v === undefined || typeof v === 'string', 'a string') as string | undefined) ?? null,
    clusterSelector:
      (specField(spec, 'clusterSelector', (v) => v === undefined || typeof v === 'string', 'a string') as string | undefined) ?? null,
    reserved:
      (specField(
        spec,
        'reserved',
        (v) => v === undefined || (Array.isArray(v) && v.every((e) => typeof e === 'string')),
        'a list of strings',
      ) as string[] | undefined) ?? [],
    disabled:
      (specField(spec, 'disabled', (v) => v === undefined || typeof v === 'boolean', 'true or false') as boolean | undefined) ?? false,
    reuseDelaySeconds: optionalNumber(spec, 'reuseDelaySeconds'),
    blockSize: optionalNumber(spec, 'blockSize'),
    blockAffinity: specField(spec, 'blockAffinity', (v) => v === undefined || v === 'strict' || v === 'borrow', '"strict" or "borrow"') as
      | 'strict'
      | 'borrow'
      | undefined,
    blockReleaseSeconds: optionalNumber(spec, 'blockReleaseSeconds'),
    allowSpecialRanges: specField(spec, 'allowSpecialRanges', (v) => v === undefined || typeof v === 'boolean', 'true or false') as
      | boolean
      | undefined,
    network: specField(spec, 'network', (v) => v === undefined || typeof v === 'string', 'a string') as string | undefined,
  });
  const current = await findPool(name);
  const owner = holders.includes(cluster) ? null : poolOwner(holders, cluster, current !== null);
  if (owner) throw new DomainError('POOL_EXISTS', `pool "${name}" exists and is not this IPPool's: ${owner} holds it`);
  const plan = planPoolApply(current, desired);
  if ('create' in plan) {
    await commands.execute(new CreatePoolsCommand([plan.create], metadata, unit));
    return 'created';
  }
  await commands.execute(new UpdatePoolCommand(name, plan.patch, metadata, unit));
  return 'applied';
}

/**
 * Who holds an existing pool this cluster's IPPool does not: another cluster's IPPool, or the REST
 * API. The default cluster's IPPools take a REST pool over, as they did before clusters (a
 * single-cluster user sees no change); null: nobody keeps this IPPool from it.
 */
function poolOwner(holders: readonly string[], cluster: string, exists: boolean): string | null {
  const other = holders.find((holder) => holder !== cluster);
  if (other) return `cluster ${other}'s IPPool`;
  return exists && cluster !== DEFAULT_CLUSTER ? 'the REST API' : null;
}

function optionalNumber(spec: Record<string, unknown>, key: string): number | undefined {
  return specField(spec, key, (v) => v === undefined || typeof v === 'number', 'a number') as number | undefined;
}

/** The CRD's schema checks these in a real cluster; the consumer does not count on it. */
function specField(spec: Record<string, unknown>, key: string, valid: (value: unknown) => boolean, expected: string): unknown {
  if (!valid(spec[key])) throw new InvalidInputError('INVALID_ARGUMENT', `IPPool spec.${key} must be ${expected}`);
  return spec[key];
}
