/** The stream moved on since the caller read it: reload and decide again. */
export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expectedVersion: number,
    readonly actualVersion?: number,
  ) {
    super(`stream ${streamId} is not at version ${expectedVersion}` + (actualVersion === undefined ? '' : ` (it is at ${actualVersion})`));
    this.name = 'ConcurrencyError';
  }
}
