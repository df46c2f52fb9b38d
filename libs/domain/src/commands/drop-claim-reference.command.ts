import type { NodeRestriction } from '../allocation/node-restriction';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

/** A handle's DELETE: if it is a claim's reference, that reference only goes (idempotent). */
export class DropClaimReferenceCommand {
  constructor(
    readonly handle: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    readonly restriction: NodeRestriction | null = null,
  ) {}
}
