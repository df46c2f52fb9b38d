import {
  CreatePoolsCommand,
  DeletePoolCommand,
  parsePoolSpec,
  planPoolApply,
  UpdatePoolCommand,
  InvalidInputError,
} from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { deleteOnce, type ApplyContext } from './apply-context';

/**
 * An IPPool object (ipam.ipledger.io/v1alpha1) is the whole pool: spec {cidr, gateway, nodeSelector,
 * clusterSelector, reserved, disabled, reuseDelaySeconds, blockSize, blockAffinity, blockReleaseSeconds, allowSpecialRanges, network}, labels from
 * its metadata. A deleted IPPool whose pool
 * still has addresses, or a cidr the pool cannot take (POOL_IN_USE, POOL_OVERLAP...), is refused,
 * and the refusal is recorded as the object's status.
 */
export async function applyIpPool({ commands, metadata, unit, findPool }: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  const name = object.metadata.name;
  if (type === 'DELETED') return deleteOnce(commands.execute(new DeletePoolCommand(name, metadata, unit)), 'POOL_NOT_FOUND');
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
  const plan = planPoolApply(await findPool(name), desired);
  if ('create' in plan) {
    await commands.execute(new CreatePoolsCommand([plan.create], metadata, unit));
    return 'created';
  }
  await commands.execute(new UpdatePoolCommand(name, plan.patch, metadata, unit));
  return 'applied';
}

function optionalNumber(spec: Record<string, unknown>, key: string): number | undefined {
  return specField(spec, key, (v) => v === undefined || typeof v === 'number', 'a number') as number | undefined;
}

/** The CRD's schema checks these in a real cluster; the consumer does not count on it. */
function specField(spec: Record<string, unknown>, key: string, valid: (value: unknown) => boolean, expected: string): unknown {
  if (!valid(spec[key])) throw new InvalidInputError('INVALID_ARGUMENT', `IPPool spec.${key} must be ${expected}`);
  return spec[key];
}
