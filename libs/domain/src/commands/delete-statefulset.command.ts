import type { CommandMetadata } from '../command-metadata';

/** Releases the range and every address the StatefulSet's pods hold. */
export class DeleteStatefulSetCommand {
  constructor(
    readonly namespace: string,
    readonly name: string,
    readonly metadata: CommandMetadata,
  ) {}
}
