import { Injectable } from '@nestjs/common';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { collectProcessMetrics } from '@ipledger/runtime';

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
  readonly leakReleases = new Counter({
    name: 'ipledger_leak_releases_total',
    help: 'Addresses released on no request of their holder, by reason: pod-missing (two pod syncs did not list the pod), node-unreachable, node-deleted (held for the node)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly allocations = new Counter({
    name: 'ipledger_allocations_total',
    help: 'Allocation requests by cluster and outcome: allocated, existing (the handle held them already), exhausted, no-eligible-pool, ip-in-use, refused (another refusal), error',
    labelNames: ['cluster', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly replays = new Counter({
    name: 'ipledger_replays_total',
    help: '`?at=` replays of the past by outcome: started, dropped (its client went away while it waited), refused (503, past the queue)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly replaysWaiting = new Gauge({
    name: 'ipledger_replays_waiting',
    help: "`?at=` replays waiting for one of the replica's replay slots (IPAM_REPLAY_CONCURRENCY)",
    registers: [this.registry],
  });
  readonly allocationDuration = new Histogram({
    name: 'ipledger_allocation_duration_seconds',
    help: 'Time to decide and commit an allocation (answered or refused), by cluster',
    labelNames: ['cluster'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly podCreationToAllocation = new Histogram({
    name: 'ipledger_pod_creation_to_allocation_seconds',
    help: "Time from a pod's creation in the Kubernetes API server to its addresses allocated, for pods the watcher reported before their CNI ADD, by cluster",
    labelNames: ['cluster'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [this.registry],
  });
  readonly consumerLagMessages = new Gauge({
    name: 'ipledger_kubernetes_consumer_lag_messages',
    help: "Messages in the stream not yet delivered to the API's consumer, as of its latest delivery of this kind",
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly consumerLagSeconds = new Gauge({
    name: 'ipledger_kubernetes_consumer_lag_seconds',
    help: 'How long the latest delivered message of this kind waited in the stream',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  readonly tokenFileReads = new Counter({
    name: 'ipledger_token_file_reads_total',
    help: 'Reads of IPAM_TOKENS_FILE after it changed, by outcome (loaded; refused: it did not parse, the previous tokens stay)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly tokenReviews = new Counter({
    name: 'ipledger_token_reviews_total',
    help: "TokenReviews sent to a cluster's Kubernetes API server (IPAM_TOKEN_REVIEW), by cluster and outcome: node (a node credential), refused, failed (no verdict: 503)",
    labelNames: ['outcome', 'cluster'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectProcessMetrics(this.registry, 'ipledger_');
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
