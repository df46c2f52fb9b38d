import type { CommandMetadata } from '../command-metadata';
import type { PoolSpecInput } from '../pool/pool-spec';

export class CreatePoolCommand {
  constructor(
    readonly input: PoolSpecInput,
    readonly metadata: CommandMetadata,
  ) {}
}
