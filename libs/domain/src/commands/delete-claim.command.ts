import type { CommandMetadata } from '../command-metadata';

/** Deletes a claim, dropping its references and releasing its addresses. */
export class DeleteClaimCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
  ) {}
}
