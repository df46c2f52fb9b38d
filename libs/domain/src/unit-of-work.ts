/**
 * How a command's writes commit, named by whoever sends the command (a controller, the Kubernetes
 * consumer, the CLI) and carried by the command; apps/api/src/infrastructure/unit-of-work.ts
 * carries each out. Nothing implicit decides it.
 * - `own-transaction`: the command appends in transactions of its own and decides again after a
 *   version conflict (a REST request; `retries` false when the caller retries by other means).
 * - `fenced`: every append first passes the caller's check in its transaction (the consumer's
 *   order check for one object), and the streams read are noted for the caller's confirmation.
 * - `deferred`: the appends are collected for the caller to commit with other work's.
 * The fourth way events are written, the group commit, belongs to no one command: see
 * EventWriter.appendGroup.
 */
export type WriteMode = 'own-transaction' | 'fenced' | 'deferred';

export interface UnitOfWork {
  readonly mode: WriteMode;
}
