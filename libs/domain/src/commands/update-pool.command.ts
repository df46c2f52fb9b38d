import type { CommandMetadata } from '../command-metadata';

export class UpdatePoolCommand {
  constructor(
    readonly name: string,
    readonly patch: {
      labels?: Record<string, string>;
      nodeSelector?: string | null;
      disabled?: boolean;
      reuseDelaySeconds?: number;
      allowSpecialRanges?: boolean;
      /** a new CIDR: grown or shrunk in place (see decideResizePool) */
      cidr?: string;
    },
    readonly metadata: CommandMetadata,
  ) {}
}
