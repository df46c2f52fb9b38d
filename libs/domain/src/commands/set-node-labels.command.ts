import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

export class SetNodeLabelsCommand {
  constructor(
    readonly name: string,
    readonly labels: Record<string, string>,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    /** the node's cluster */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
