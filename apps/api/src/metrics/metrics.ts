import { Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** One registry per application instance, so several instances in one process (tests) never clash. */
@Injectable()
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'ipledger_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly duration = new Histogram({
    name: 'ipledger_http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });

  readonly kubernetesMessages = new Counter({
    name: 'ipledger_kubernetes_messages_total',
    help: 'Watcher messages by kind and outcome (acked, retried, malformed; refused and parked ones are also counted as such)',
    labelNames: ['kind', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly leaksReleased = new Counter({
    name: 'ipledger_kubernetes_leaked_addresses_released_total',
    help: 'Handles released because two consecutive pod syncs did not list their pod',
    registers: [this.registry],
  });

  readonly tokenFileReads = new Counter({
    name: 'ipledger_token_file_reads_total',
    help: 'Reads of IPAM_TOKENS_FILE after it changed, by outcome (loaded; refused: it did not parse, the previous tokens stay)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'ipledger_' });
  }
}

/**
 * Counts and times every answered request, 404s and refused bodies included: labelled by route
 * pattern (`/v1/pools/:name`), never by raw path, so cardinality stays bounded. A Fastify hook, as
 * the access log is: 'onResponse' sees the final status, also when an exception filter wrote it.
 */
export function measureRequests(fastify: FastifyInstance, metrics: Metrics): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    metrics.duration.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
}
