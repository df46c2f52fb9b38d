export interface BackoffPolicy {
  /** the ceiling of the first retry's delay */
  baseMs: number;
  /** the ceiling stops doubling here */
  maxMs: number;
}

/**
 * The delay before retry number `attempt` (1 for the first): the ceiling doubles from baseMs up to
 * maxMs and the delay is drawn from its upper half ("equal jitter"), so clients that failed
 * together do not come back together, yet each still waits a while.
 */
export function backoffDelayMs(attempt: number, { baseMs, maxMs }: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 1) - 1, 52));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Backoff for a long-running loop: a failure after a quiet period (resetAfterMs) starts over from the base. */
export class Backoff {
  private attempt = 0;
  private lastFailure = 0;

  constructor(
    private readonly policy: BackoffPolicy,
    private readonly resetAfterMs: number,
  ) {}

  next(): number {
    const now = Date.now();
    if (now - this.lastFailure > this.resetAfterMs) this.attempt = 0;
    this.lastFailure = now;
    return backoffDelayMs(++this.attempt, this.policy);
  }
}
