import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

export class UpdatePoolCommand {
  constructor(
    readonly name: string,
    readonly patch: {
      labels?: Record<string, string>;
      nodeSelector?: string | null;
      clusterSelector?: string | null;
      disabled?: boolean;
      reuseDelaySeconds?: number;
      allowSpecialRanges?: boolean;
      /** a new CIDR: grown or shrunk in place (see decideResizePool) */
      cidr?: string;
    },
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
