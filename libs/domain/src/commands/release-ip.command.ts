import type { CommandMetadata } from '../command-metadata';

/** Releases every address a handle holds (CNI DEL): idempotent. */
export class ReleaseIpCommand {
  constructor(
    readonly handle: string,
    readonly metadata: CommandMetadata,
  ) {}
}
