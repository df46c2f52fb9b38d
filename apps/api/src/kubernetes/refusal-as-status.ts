import type { Logger } from '@nestjs/common';
import { DomainError } from '@ipledger/domain';
import type { KubeKind } from '@ipledger/messaging';
import { isConflict } from '../infrastructure/unit-of-work';
import type { Metrics } from '../metrics/metrics';

/** Runs an applier and answers its status; a refusal becomes the status (see refusalAsStatus). */
export type StatusOf = (kind: KubeKind, what: string, apply: () => Promise<string>) => Promise<string>;

/**
 * A refusal by the domain is final for this message: it becomes the object's status instead of a
 * retry (logged, counted). A lost race is no refusal.
 */
export const refusalAsStatus =
  (logger: Logger, metrics: Metrics): StatusOf =>
  async (kind, what, apply) => {
    try {
      return await apply();
    } catch (err) {
      if (!(err instanceof DomainError) || isConflict(err)) throw err;
      const status = `refused: ${err.code}: ${err.message}`;
      logger.warn(`${kind} ${what} ${status}`);
      metrics.kubernetesMessages.inc({ kind, outcome: 'refused' });
      return status;
    }
  };
