import type { CommandMetadata } from '../command-metadata';
import type { ReleaseCondition } from '../events';

/** Releases every address a handle holds (CNI DEL): idempotent. */
export class ReleaseIpCommand {
  constructor(
    readonly handle: string,
    readonly metadata: CommandMetadata,
    readonly condition: ReleaseCondition = {},
  ) {}
}
