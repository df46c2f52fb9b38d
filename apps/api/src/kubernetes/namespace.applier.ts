import { parsePoolAnnotations } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';

/**
 * A Namespace is only recorded (its row keeps its pool annotations for its pods' allocations);
 * malformed annotations are refused here, so its status says why before any of its pods asks.
 */
export function applyNamespace(_ctx: unknown, { type, object }: ObjectChange): Promise<string> {
  if (type === 'DELETED') return Promise.resolve('deleted');
  parsePoolAnnotations(object.metadata.annotations, `namespace ${object.metadata.name}`);
  return Promise.resolve('seen');
}
