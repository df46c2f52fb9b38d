import type { ObjectChange, SyncMarker } from './watch-change';

/**
 * `Nats-Msg-Id`: the same object version always gets the same id, so JetStream drops the copies a
 * restarted watcher publishes again within the duplicate window (handlers are idempotent beyond it).
 */
export function changeMessageId({ type, object }: ObjectChange): string {
  return `${object.metadata.uid}:${type === 'DELETED' ? 'deleted' : object.metadata.resourceVersion}`;
}

export const syncMessageId = (marker: Pick<SyncMarker, 'syncId' | 'chunk'>) => `sync:${marker.syncId}:${marker.chunk}`;
