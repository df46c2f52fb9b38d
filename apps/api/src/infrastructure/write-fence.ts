import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';

/**
 * A condition every append made on behalf of one piece of work must meet, checked inside the
 * append's own transaction, and a note of the streams that work read. The Kubernetes consumer
 * fences each message: the object's order check and its record become one step with the events
 * (see kubernetes-objects.ts), so two replicas never apply one object's messages out of order.
 * Commands do not know about it: they run inside `runFenced` and EventWriter applies the fence.
 */
export interface WriteFence {
  /** first statement of every fenced append's transaction; throws to refuse it */
  readonly check: (client: PoolClient) => Promise<void>;
  /** stream id -> the version the work's latest decision on it was made at */
  readonly reads: Map<string, number>;
}

const current = new AsyncLocalStorage<WriteFence>();

export const runFenced = <T>(fence: WriteFence, work: () => Promise<T>): Promise<T> => current.run(fence, work);

export const currentFence = (): WriteFence | undefined => current.getStore();

/** Work shared by several commands (a group commit) runs under no one command's fence. */
export const runUnfenced = <T>(work: () => T): T => current.exit(work);
