import type { Logger } from '@nestjs/common';
import { parseSubject, type Delivery, type Outcome, type StreamNames } from '@ipledger/messaging';
import type { Metrics } from '../metrics/metrics';

/** What the consumer measures and logs of each message: its lag when it comes, its outcome when settled. */
export class ConsumerMetrics {
  constructor(
    private readonly names: StreamNames,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  measureLag(delivery: Delivery): void {
    const kind = parseSubject(this.names, delivery.subject)?.kind;
    if (!kind || delivery.pending === undefined || delivery.publishedAtMs === undefined) return;
    this.metrics.consumerLagMessages.set({ kind }, delivery.pending);
    this.metrics.consumerLagSeconds.set({ kind }, Math.max(0, Date.now() - delivery.publishedAtMs) / 1000);
  }

  settled(delivery: Delivery, outcome: Outcome): void {
    const kind = parseSubject(this.names, delivery.subject)?.kind ?? 'unknown';
    if ('terminate' in outcome) {
      this.logger.error(
        `malformed message ${delivery.messageId ?? ''} (stream sequence ${delivery.streamSequence}, epoch ${delivery.streamEpoch}) terminated: ${outcome.terminate}`,
      );
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'malformed' });
    } else if ('retryAfterMs' in outcome) {
      this.logger.warn(
        `message ${delivery.messageId ?? ''} failed (delivery ${delivery.deliveryCount}), retried in ${outcome.retryAfterMs} ms: ${outcome.error.message}`,
      );
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'retried' });
    } else {
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'acked' });
    }
  }
}
