import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

export class DeleteClusterCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
