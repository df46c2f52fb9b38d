import { DeleteNodeCommand, SetNodeLabelsCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { deleteOnce, type ApplyContext } from './apply-context';

/** A Node's labels replace the stored ones (PUT semantics); a deleted Node is deleted. */
export async function applyNode({ commands, metadata }: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  const { name, labels } = object.metadata;
  if (type === 'DELETED') return deleteOnce(commands.execute(new DeleteNodeCommand(name, metadata)), 'NODE_NOT_FOUND');
  await commands.execute(new SetNodeLabelsCommand(name, labels ?? {}, metadata));
  return 'labels applied';
}
