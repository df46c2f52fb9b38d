import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

export interface ClaimSpec {
  network?: string;
  cluster?: string;
}

/** Makes a claim persistent (creating it when new): it keeps its addresses without references until deleted. */
export class PutClaimCommand {
  constructor(
    readonly name: string,
    readonly spec: ClaimSpec,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
