import type { NodeRestriction } from '../allocation/node-restriction';
import type { CommandMetadata } from '../command-metadata';

/** A handle's DELETE: if it is a claim's reference, that reference only goes (idempotent). */
export class DropClaimReferenceCommand {
  constructor(
    readonly handle: string,
    readonly metadata: CommandMetadata,
    readonly restriction: NodeRestriction | null = null,
  ) {}
}
