import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client's gauges named like counters, which `promtool check metrics` flags; each has a
 * correctly named twin (`nodejs_active_handles` for `nodejs_active_handles_total`...) that stays.
 */
const MISNAMED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** The process and Node.js metrics, without the gauges named `_total`. */
export function collectProcessMetrics(registry: Registry, prefix: string): void {
  collectDefaultMetrics({ register: registry, prefix });
  for (const name of MISNAMED) registry.removeSingleMetric(`${prefix}${name}`);
}
