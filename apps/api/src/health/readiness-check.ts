/**
 * One entry of `/readyz?verbose`: `ok`, `failed` (with a message) or `off` (not configured), plus
 * whatever detail the check adds. Only `required` checks decide readiness, that is whether the
 * Service sends this replica traffic; the others are reported (here and in metrics) and alerted on.
 */
export interface CheckOutcome {
  status: 'ok' | 'failed' | 'off';
  message?: string;
  [detail: string]: unknown;
}

export interface ReadinessCheck {
  name: string;
  required: boolean;
  run(): Promise<CheckOutcome>;
  /** run once when the API starts, for what it logs */
  atStart?(): Promise<void>;
}

/** The checks /readyz runs, in the order they are reported: a provider of the health module. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
