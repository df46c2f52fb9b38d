import type { CommandMetadata } from '../command-metadata';

export class DeletePoolCommand {
  constructor(
    readonly name: string,
    readonly metadata: CommandMetadata,
  ) {}
}
