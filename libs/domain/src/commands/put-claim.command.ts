import type { CommandMetadata } from '../command-metadata';

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
  ) {}
}
