import { KubeKind } from './kube-kind';
import { KubeObject } from './kube-object';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One object as the watcher last saw it (level-triggered: the whole object, never a diff). */
export interface ObjectChange {
  kind: KubeKind;
  type: ChangeType;
  object: KubeObject;
}

/**
 * Several changes of one kind in one message (the watcher's batches): at most one change per
 * object, so that each object's order is the stream's order of the messages that carry it.
 */
export interface ChangeBatch {
  kind: KubeKind;
  changes: Array<Omit<ObjectChange, 'kind'>>;
}

/** A live object named in a sync marker. */
export interface LiveKey {
  key: string;
  uid: string;
}

/**
 * After every (re)list: every live key of a kind, as of the list's resourceVersion. Large lists are
 * split into chunks (NATS limits a message to 1 MiB); a sync is complete when all chunks arrived.
 */
export interface SyncMarker {
  kind: KubeKind;
  syncId: string;
  resourceVersion: string;
  listedAt: string;
  chunk: number;
  chunks: number;
  items: LiveKey[];
}
