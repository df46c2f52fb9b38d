import { DeleteNodeCommand, SetNodeLabelsCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { forgetNodeReadiness, recordNodeReadiness } from '@ipledger/projections';
import { deleteOnce, type ApplyContext } from './apply-context';
import { nodeReadiness, releaseForDeletedNode } from './held-for-node';

/** Nodes carry the labels pools are chosen by (PUT semantics), and the Ready condition held addresses wait on. */
export async function applyNode(ctx: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  const { commands, db, metadata, unit, cluster } = ctx;
  const { name, labels } = object.metadata;
  if (type === 'DELETED') {
    const released = await releaseForDeletedNode(ctx, name);
    await forgetNodeReadiness(db, cluster, name);
    const status = await deleteOnce(commands.execute(new DeleteNodeCommand(name, metadata, unit, cluster)), 'NODE_NOT_FOUND');
    return released.length ? `${status}; released ${released.length} handle(s) held for it` : status;
  }
  await commands.execute(new SetNodeLabelsCommand(name, labels ?? {}, metadata, unit, cluster));
  const ready = nodeReadiness(object);
  if (ready === null) return 'labels applied';
  await recordNodeReadiness(db, cluster, name, ready, {
    streamEpoch: metadata.streamEpoch ?? 0,
    streamSequence: metadata.streamSequence ?? 0,
  });
  return `labels applied; ${ready ? 'Ready' : 'not Ready'}`;
}
