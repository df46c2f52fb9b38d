import type { CommandMetadata } from '../command-metadata';

export class DeleteClusterCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
  ) {}
}
