import { ReleaseIpCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { findPodHandles } from '@ipledger/projections';
import type { ApplyContext } from './apply-context';

/**
 * A deleted Pod releases its addresses (a CNI DEL may never come: node gone, plugin crashed).
 * Only those given to this pod's uid, or recorded without one, go: a new pod of the same name
 * (a StatefulSet pod restarted) keeps what it was given. Live pods are only recorded.
 */
export async function applyPod({ commands, db, metadata }: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  if (type !== 'DELETED') return 'seen';
  const { name, uid } = object.metadata;
  const namespace = object.metadata.namespace as string;
  const handles = (await findPodHandles(db, namespace, name)).filter((h) => h.podUid === null || h.podUid === uid);
  for (const { handle } of handles) {
    await commands.execute(new ReleaseIpCommand(handle, metadata, { podUid: uid, reason: { cause: 'pod-deleted', podUid: uid } }));
  }
  return handles.length ? `released ${handles.length} handle(s)` : 'deleted';
}
