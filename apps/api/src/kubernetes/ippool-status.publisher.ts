import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { ipPoolStatusSubject, type IpPoolStatusMessage } from '@ipledger/messaging';
import type { NatsConnection } from 'nats';
import type { Pool } from 'pg';
import type { KubernetesConsumerConfig } from '../config';
import { PG_POOL } from '../infrastructure/tokens';
import { BusConnection } from './bus-connection';
import { ipPoolStatuses } from './ippool-statuses';
import { KUBERNETES_CONFIG } from './kubernetes-consumer';

/** Every IPPool's status is published again this often, so a watcher that (re)started gets them all. */
const REPUBLISH_EVERY_TICKS = 15;

/**
 * The API holds the pools and the refusal reasons; the watcher holds the Kubernetes credentials.
 * So every IPAM_IPPOOL_STATUS_INTERVAL_MS the API reads each IPPool's status and publishes the ones
 * that changed (all of them now and then) on a core NATS subject; the watcher patches them into
 * the IPPools' status subresource. Every replica publishes the same rows; the watcher writes only
 * what differs from what it wrote last.
 */
@Injectable()
export class IpPoolStatusPublisher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('ippool-status');
  private readonly published = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private ticks = 0;
  private running: Promise<void> | null = null;

  constructor(
    @Inject(KUBERNETES_CONFIG) private readonly config: KubernetesConsumerConfig,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly bus: BusConnection,
  ) {}

  onApplicationBootstrap(): void {
    void this.bus.ready.then(
      (nc) => {
        this.timer = setInterval(() => {
          if (this.running) return;
          this.running = this.publish(nc)
            .catch((err: Error) => this.logger.warn(`IPPool statuses not published: ${err.message}`))
            .finally(() => (this.running = null));
        }, this.config.ipPoolStatusIntervalMs);
      },
      () => undefined,
    );
  }

  /** Before the shared connection drains (BusConnection, onApplicationShutdown). */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async publish(nc: NatsConnection): Promise<void> {
    if (nc.isClosed()) return;
    const all = this.ticks++ % REPUBLISH_EVERY_TICKS === 0;
    const statuses = await ipPoolStatuses(this.db);
    const live = new Set<string>();
    for (const { cluster, message } of statuses) {
      const text = JSON.stringify(message satisfies IpPoolStatusMessage);
      const key = `${cluster}/${message.name}`;
      live.add(key);
      if (!all && this.published.get(key) === text) continue;
      // while the bus is away nats.js buffers these: the newest state arrives last
      nc.publish(ipPoolStatusSubject(this.config.names, cluster), text);
      this.published.set(key, text);
    }
    for (const name of this.published.keys()) if (!live.has(name)) this.published.delete(name);
  }
}
