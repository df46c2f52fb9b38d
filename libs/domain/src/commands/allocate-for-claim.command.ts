import type { NodeRestriction } from '../allocation/node-restriction';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { AllocateIpInput } from './allocate-ip.command';

/** An allocation naming a claim: the handle becomes a reference of the claim and is answered its addresses. */
export class AllocateForClaimCommand {
  constructor(
    readonly input: AllocateIpInput & { claim: string },
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    readonly restriction: NodeRestriction | null = null,
  ) {}
}
