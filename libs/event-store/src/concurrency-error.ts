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

/**
 * The append's precondition (AppendOptions.precondition) no longer held when it ran: nothing was
 * written. Like a moved stream, it is resolved by reading afresh and deciding again.
 */
export class PreconditionFailedError extends ConcurrencyError {
  constructor(streamId: string, expectedVersion: number) {
    super(streamId, expectedVersion);
    this.message = `the append to ${streamId} at version ${expectedVersion} was refused: what it was decided on changed`;
    this.name = 'PreconditionFailedError';
  }
}
