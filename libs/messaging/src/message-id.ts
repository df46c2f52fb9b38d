import { createHash } from 'node:crypto';
import { DEFAULT_KUBE_CLUSTER } from './subjects';
import type { ObjectChange, SyncMarker } from './watch-change';

/**
 * `Nats-Msg-Id`: the same object version always gets the same id, so JetStream drops the copies a
 * restarted watcher publishes again within the duplicate window (handlers are idempotent beyond it).
 * Another cluster's carry its name: two clusters' API servers may give the same uid and version
 * (fakes, restored etcd snapshots), and one stream deduplicates across them.
 */
export function changeMessageId({ type, object }: ObjectChange, cluster = DEFAULT_KUBE_CLUSTER): string {
  const id = `${object.metadata.uid}:${type === 'DELETED' ? 'deleted' : object.metadata.resourceVersion}`;
  return cluster === DEFAULT_KUBE_CLUSTER ? id : `${cluster}:${id}`;
}

export const syncMessageId = (marker: Pick<SyncMarker, 'syncId' | 'chunk'>) => `sync:${marker.syncId}:${marker.chunk}`;

/** A batch's id names the object versions it carries: the same batch published again is dropped as a duplicate. */
export const batchMessageId = (changeIds: readonly string[]) => `batch:${createHash('sha256').update(changeIds.join('\n')).digest('hex')}`;
