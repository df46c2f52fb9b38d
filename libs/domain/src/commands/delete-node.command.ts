import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { CommandMetadata } from '../command-metadata';

export class DeleteNodeCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
    /** the node's cluster */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
