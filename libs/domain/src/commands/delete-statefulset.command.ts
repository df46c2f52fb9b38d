import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

/** Releases the range and every address the StatefulSet's pods hold. */
export class DeleteStatefulSetCommand {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    /** the StatefulSet's cluster */
    readonly cluster: string,
  ) {}
}
