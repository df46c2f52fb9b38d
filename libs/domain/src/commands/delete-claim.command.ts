import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

/** Deletes a claim, dropping its references and releasing its addresses. */
export class DeleteClaimCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
