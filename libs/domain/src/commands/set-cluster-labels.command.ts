import type { CommandMetadata } from '../command-metadata';

export class SetClusterLabelsCommand {
  constructor(
    readonly name: string,
    readonly labels: Record<string, string>,
    readonly metadata: CommandMetadata,
  ) {}
}
