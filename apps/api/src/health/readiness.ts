import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { Metrics } from '../metrics/metrics';
import { READINESS_CHECKS, type CheckOutcome, type ReadinessCheck } from './readiness-check';

export interface ReadinessReport {
  /** every required check is ok */
  ready: boolean;
  checks: Record<string, CheckOutcome & { required: boolean }>;
}

/** A check that has not answered within this is failed: a probe never hangs on a lost connection. */
const CHECK_TIMEOUT_MS = 2000;

/** Runs the readiness checks for /readyz and for the `ipledger_readiness_check` gauge. */
@Injectable()
export class Readiness {
  constructor(
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    metrics: Metrics,
  ) {
    const gauge = new Gauge({
      name: 'ipledger_readiness_check',
      help: 'Each readiness check at scrape time: 1 ok, 0 failed (absent when off); required ones decide /readyz',
      labelNames: ['check', 'required'] as const,
      registers: [metrics.registry],
      collect: async () => {
        gauge.reset();
        for (const [name, outcome] of Object.entries((await this.report()).checks)) {
          if (outcome.status !== 'off') gauge.set({ check: name, required: String(outcome.required) }, outcome.status === 'ok' ? 1 : 0);
        }
      },
    });
  }

  async report(): Promise<ReadinessReport> {
    const outcomes = await Promise.all(this.checks.map((check) => bounded(check)));
    const checks = Object.fromEntries(this.checks.map((check, i) => [check.name, { ...outcomes[i], required: check.required }]));
    return { ready: this.checks.every((check, i) => !check.required || outcomes[i].status === 'ok'), checks };
  }
}

async function bounded(check: ReadinessCheck): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'failed', message: `no answer within ${CHECK_TIMEOUT_MS} ms` }), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.run().catch((err: Error) => ({ status: 'failed' as const, message: err.message })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
