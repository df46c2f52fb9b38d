/**
 * Serialises work on one key inside this process (one pool stream at a time), so the commands that
 * change several pools at once (dual stack, StatefulSets, a release in several pools) queue
 * instead of colliding on the stream version; single-pool allocations and releases go through the
 * group commit instead. Across replicas, and between the two paths, the event store's expected
 * version is the guard; this only keeps conflicts (and their retries) rare.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async lock(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let unlock!: () => void;
    const current = new Promise<void>((resolve) => (unlock = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    return () => {
      unlock();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  /** The one key for an IP pool's stream, so every path that locks a pool queues on the same key. */
  lockPool(pool: string): Promise<() => void> {
    return this.lock(`pool-${pool}`);
  }
}
