export /** Jittered exponential delays; a failure after a quiet period starts over from the base. */
class Backoff {
  private attempt = 0;
  private lastFailure = 0;

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly resetAfterMs: number,
  ) {}

  next(): number {
    const now = Date.now();
    if (now - this.lastFailure > this.resetAfterMs) this.attempt = 0;
    this.lastFailure = now;
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt++);
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}
