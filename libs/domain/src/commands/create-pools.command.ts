import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { PoolSpecInput } from '../pool/pool-spec';

/** Creates one or more pools, all or none (REST creates one; a sync of thousands creates many). */
export class CreatePoolsCommand {
  constructor(
    readonly inputs: PoolSpecInput[],
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
