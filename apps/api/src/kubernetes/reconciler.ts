import type { Delivery } from '@ipledger/messaging';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import { conflictDelayMs, isConflict } from '../infrastructure/unit-of-work';
import type { StreamPosition } from '@ipledger/projections';

/**
 * What reconciling one message decided, as controller-runtime's Reconcile answers: done
 * (acknowledged), again after a delay (a lost race, decided afresh on the state then), or set
 * aside (parked, with the reason). A thrown error is none of these: the message is delivered
 * again later, with a growing delay (the database away, say).
 */
export type Reconciled = { ack: true } | { requeueAfterMs: number; error: Error } | { park: string };

export const ACK: Reconciled = { ack: true };

/** A change as it came: what it says, and its delivery (its position orders it, its count decides parking). */
export interface Delivered<Change> {
  change: Change;
  delivery: Delivery;
}

/**
 * Level-based, as a Kubernetes controller is: a message carries its object's whole state, so
 * reconciling an object's newest message brings the ledger to it, whatever came before; one key's
 * messages are reconciled in order, different keys concurrently.
 */
export interface Reconciler<Change> {
  reconcile(key: string, change: Delivered<Change>): Promise<Reconciled>;
}

/**
 * A failure other than a refusal: a lost race is no fault of the message (requeued soon, decided
 * again on fresh state, never parked); past IPAM_KUBERNETES_MAX_ATTEMPTS deliveries it is parked,
 * unless the database is away (no fault of the message either); else thrown, for a later retry.
 */
export function afterFailure(err: unknown, delivery: Delivery, maxAttempts: number): Reconciled {
  if (isConflict(err)) return { requeueAfterMs: conflictDelayMs(delivery.deliveryCount), error: err as Error };
  if (delivery.deliveryCount < maxAttempts || isDatabaseUnavailable(err)) throw err;
  return { park: `after ${delivery.deliveryCount} attempt(s): ${(err as Error).message}` };
}

export const positionOf = (delivery: Delivery): StreamPosition => ({
  streamEpoch: delivery.streamEpoch,
  streamSequence: delivery.streamSequence,
});
