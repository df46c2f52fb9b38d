import type { NodeRestriction } from '../allocation/node-restriction';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

/** A handle's DELETE, of a claim's reference: that reference only goes (idempotent). */
export class DropClaimReferenceCommand {
  constructor(
    readonly handle: string,
    /** the claim the handle was found a reference of */
    readonly claim: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    readonly restriction: NodeRestriction | null = null,
    /** the handle's cluster */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
