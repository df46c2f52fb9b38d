import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { CommandMetadata } from '../command-metadata';

export class SetNodeLabelsCommand {
  constructor(
    readonly name: string,
    readonly labels: Record<string, string>,
    readonly metadata: CommandMetadata,
    /** the node's cluster */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
