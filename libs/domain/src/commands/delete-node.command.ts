import type { CommandMetadata } from '../command-metadata';

export class DeleteNodeCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
  ) {}
}
