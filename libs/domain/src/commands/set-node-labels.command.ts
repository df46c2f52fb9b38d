import type { CommandMetadata } from '../command-metadata';

export class SetNodeLabelsCommand {
  constructor(
    readonly name: string,
    readonly labels: Record<string, string>,
    readonly metadata: CommandMetadata,
  ) {}
}
