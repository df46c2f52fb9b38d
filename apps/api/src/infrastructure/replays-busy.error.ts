/** A `?at=` read past the replays a replica runs and queues (IPAM_REPLAY_CONCURRENCY, IPAM_REPLAY_QUEUE): 503 with Retry-After. */
export class ReplaysBusyError extends Error {
  constructor(
    readonly running: number,
    readonly waiting: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      `${running} replays of the past are running and ${waiting} waiting, as many as this replica takes; retry after ${retryAfterSeconds} s`,
    );
    this.name = 'ReplaysBusyError';
  }
}
