import type { CommandMetadata } from '../command-metadata';

export class UpdatePoolCommand {
  constructor(
    readonly name: string,
    readonly patch: { labels?: Record<string, string>; nodeSelector?: string | null; disabled?: boolean },
    readonly metadata: CommandMetadata,
  ) {}
}
