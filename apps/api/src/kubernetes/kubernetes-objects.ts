import { objectKey, type KubeKind } from '@ipledger/messaging';
import {
  claimObjectRows,
  clusterKey,
  parkObjectRow,
  readAlreadyApplied,
  type ObjectRow,
  type Queryable,
  type StreamPosition,
} from '@ipledger/projections';
import type { ClusterChange } from './kube-message';

/**
 * Per message, whether it, or a newer one of its object, was applied to the end (one query for
 * all; see readAlreadyApplied).
 */
export function alreadyApplied(db: Queryable, messages: ReadonlyArray<{ change: ClusterChange } & StreamPosition>): Promise<boolean[]> {
  return readAlreadyApplied(
    db,
    messages.map(({ change, streamEpoch, streamSequence }) => ({
      cluster: change.cluster,
      kind: change.kind,
      key: objectKey(change.object),
      streamEpoch,
      streamSequence,
    })),
  );
}

/**
 * The kinds whose (trimmed) object is kept in its row: a StatefulSet, reconciled again at syncs;
 * an IPPool's generation for its status (observedGeneration); a Pod, for where it runs and the
 * addresses the cluster reports (`ipledger check`) and its pool annotations; a Namespace, for its
 * pool annotations (known-pods.ts reads both at allocation).
 */
const KEPT: ReadonlySet<KubeKind> = new Set(['statefulset', 'ippool', 'pod', 'namespace']);

/** A newer message of the object was applied first, by this replica or another: this one must change nothing. */
export class StaleMessage extends Error {}

/** One message to record as its object's last applied one, with what was done. */
export interface Claim extends StreamPosition {
  change: ClusterChange;
  status: string;
}

/** Which object a message is of, across clusters (its row's kind and key): its messages are applied in order, one row each. */
export const objectIdentity = (change: ClusterChange): string => `${change.kind}/${clusterKey(change.cluster, objectKey(change.object))}`;

/** The row a message leaves its object in. */
function objectRow({ change, streamEpoch, streamSequence, status }: Claim): ObjectRow {
  return {
    cluster: change.cluster,
    kind: change.kind,
    key: objectKey(change.object),
    uid: change.object.metadata.uid,
    resourceVersion: change.object.metadata.resourceVersion,
    streamEpoch,
    streamSequence,
    deleted: change.type === 'DELETED',
    status,
    object: change.type !== 'DELETED' && KEPT.has(change.kind) ? change.object : null,
  };
}

/**
 * Records the message as the object's last applied one, with what was done ("why is my IPPool not
 * deleted" has an answer), or throws StaleMessage when a newer message was applied. Run inside each
 * transaction that appends the message's events, and in the one that confirms its final status:
 * the row lock orders two replicas' transactions for one object, so the check and the record are
 * one step with the events. A parked message is cleared by any message applied after it.
 */
export async function claimObject(db: Queryable, change: ClusterChange, position: StreamPosition, status: string): Promise<void> {
  const [recorded] = await claimObjects(db, [{ change, ...position, status }]);
  if (!recorded)
    throw new StaleMessage(
      `${change.kind} ${objectKey(change.object)} (cluster ${change.cluster}): a message newer than ${position.streamSequence} (stream epoch ${position.streamEpoch}) was applied`,
    );
}

/**
 * claimObject for many objects in one statement (each key at most once): per claim, whether it
 * was recorded (false: a newer message of its object was applied first).
 */
export function claimObjects(db: Queryable, claims: readonly Claim[]): Promise<boolean[]> {
  return claimObjectRows(db, claims.map(objectRow));
}

/** Sets a message aside that kept failing (see parkObjectRow): a newer message of the object replaces it. */
export function parkObject(db: Queryable, change: ClusterChange, position: StreamPosition, status: string): Promise<void> {
  return parkObjectRow(db, objectRow({ change, ...position, status }));
}
