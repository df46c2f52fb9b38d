import { DropClaimReferenceCommand, parseIpSetAnnotation, parsePoolAnnotations, ReleaseIpCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { findPodHandles, findPodReferences, holdForNode, readNodeReadiness } from '@ipledger/projections';
import type { ApplyContext } from './apply-context';
import { holdCause, podNode } from './held-for-node';

const POD_SEEN = 'seen';

/** A live Pod's message decides nothing that needs the database: it is only recorded (the consumer records many in one statement). */
export const onlyRecorded = (change: ObjectChange): boolean => change.kind === 'pod' && change.type !== 'DELETED';

/**
 * A deleted Pod releases its addresses (a CNI DEL may never come: node gone, plugin crashed),
 * unless its sandbox may still use them: then they are held for its node (see held-for-node.ts).
 * Only those given to this pod's uid, or recorded without one, go: a new pod of the same name
 * (a StatefulSet pod restarted) keeps what it was given. Live pods are only recorded (their row
 * keeps their pool annotations); malformed annotations are refused, so the pod's status says why.
 */
export async function applyPod({ commands, db, metadata, unit, cluster }: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  const { name, uid } = object.metadata;
  const namespace = object.metadata.namespace as string;
  if (type !== 'DELETED') {
    parsePoolAnnotations(object.metadata.annotations, `pod ${namespace}/${name}`);
    parseIpSetAnnotation(object.metadata.annotations, `pod ${namespace}/${name}`);
    return POD_SEEN;
  }
  // a claim's reference held by the pod goes with it (the claim keeps its address for its other reference, or while persistent)
  const references = await findPodReferences(db, cluster, namespace, name);
  for (const { handle, claim } of references)
    await commands.execute(new DropClaimReferenceCommand(handle, claim, metadata, unit, null, cluster));
  const handles = (await findPodHandles(db, namespace, name, cluster)).filter((h) => h.podUid === null || h.podUid === uid);
  if (handles.length === 0) return references.length ? `dropped ${references.length} claim reference(s)` : 'deleted';
  const node = podNode(object);
  const cause = node ? holdCause(object, await readNodeReadiness(db, cluster, node)) : null;
  if (node && cause) {
    await holdForNode(
      db,
      handles.map((h) => h.handle),
      { namespace, name, uid, node },
      cause,
      cluster,
    );
    return `held ${handles.length} handle(s) for node ${node} (${cause})`;
  }
  for (const { handle } of handles) {
    await commands.execute(
      new ReleaseIpCommand(handle, metadata, unit, { podUid: uid, reason: { cause: 'pod-deleted', podUid: uid } }, null, cluster),
    );
  }
  return `released ${handles.length} handle(s)`;
}
