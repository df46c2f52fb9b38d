import type { Server } from 'node:http';
import { connect, type NatsConnection } from 'nats';
import { Gauge, Registry } from 'prom-client';
import { ensureStream, KubePublisher, natsConnectOptions, OPTIONAL_KINDS, type KubeKind } from '@ipledger/messaging';
import { HttpKubeClient, type KubeConnection } from '@ipledger/kube';
import { collectProcessMetrics, redactUrl } from '@ipledger/runtime';
import { startHealthServer } from './health-server';
import { IpPoolStatusWriter } from './ippool-status-writer';
import { Reflector, type ReflectorLogger, type ReflectorStats } from './kube/reflector';
import { waitUntilServed } from './kube/served-kind';
import type { WatcherConfig } from './watcher-config';

/**
 * Kubernetes -> NATS JetStream: one reflector per kind, all publishing through one publisher. NATS
 * is waited for (never given up on) before anything is listed; while it is away, publishing
 * blocks the reflectors, so memory stays bounded and nothing is dropped.
 */
export class Watcher {
  private nc: NatsConnection | null = null;
  private client: HttpKubeClient | null = null;
  private reflectors: Reflector[] = [];
  private health: Server | null = null;
  private publisher: KubePublisher | null = null;
  private statusWriter: IpPoolStatusWriter | null = null;
  /** optional kinds the API server does not serve (yet): probed, not watched */
  private readonly absent = new Set<KubeKind>();
  private readonly stopping = new AbortController();
  readonly registry = new Registry();

  constructor(
    private readonly config: WatcherConfig,
    private readonly kube: KubeConnection,
    private readonly logger: ReflectorLogger,
  ) {
    collectProcessMetrics(this.registry, 'ipledger_watcher_');
    const stats = new Gauge({
      name: 'ipledger_watcher_reflector',
      help: 'Reflector counters by kind: lists, watches, expiredRelists (410 Gone), errors, events, unchanged (MODIFIED not sent), bookmarks, resyncs',
      labelNames: ['kind', 'counter'] as const,
      registers: [this.registry],
      collect: () => {
        for (const reflector of this.reflectors) {
          const values = reflector.stats();
          for (const counter of Object.keys(values) as Array<keyof ReflectorStats>) {
            stats.set({ kind: reflector.kind, counter }, values[counter]);
          }
        }
      },
    });
    const published = new Gauge({
      name: 'ipledger_watcher_published_messages',
      help: 'Messages stored by JetStream since start, and how many of them it dropped as duplicates',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect: () => {
        published.set({ outcome: 'stored' }, this.publisher?.published ?? 0);
        published.set({ outcome: 'duplicate' }, this.publisher?.duplicates ?? 0);
      },
    });
    const statuses = new Gauge({
      name: 'ipledger_watcher_ippool_status_patches',
      help: 'IPPool status patches since start: written, and failed (retried at the next publication)',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect: () => {
        statuses.set({ outcome: 'written' }, this.statusWriter?.patches ?? 0);
        statuses.set({ outcome: 'failed' }, this.statusWriter?.failures ?? 0);
      },
    });
  }

  /** Resolves once the health server listens; the rest (NATS, lists) goes on in the background. */
  async start(): Promise<string> {
    const { server, url } = await startHealthServer(
      { ready: () => this.ready(), registry: this.registry },
      this.config.port,
      this.config.host,
    );
    this.health = server;
    this.logger.log(`health and metrics on ${url}`);
    void this.run().catch((err: Error) => this.logger.warn(`watcher stopped: ${err.message}`));
    return url;
  }

  private async run(): Promise<void> {
    this.logger.log(`waiting for NATS at ${redactUrl(this.config.natsUrl)}`);
    const nc = await connect({
      ...natsConnectOptions(this.config.natsUrl, this.config.natsSecurity),
      name: 'ipledger-watcher',
      waitOnFirstConnect: true,
      maxReconnectAttempts: -1,
    });
    this.nc = nc;
    void (async () => {
      for await (const status of nc.status()) this.logger.log(`nats: ${status.type} ${JSON.stringify(status.data)}`);
    })();
    const jsm = await nc.jetstreamManager();
    const ensure = () => ensureStream(jsm, this.config.names, this.config.streamMaxAgeSeconds, this.config.streamReplicas);
    await ensure();
    this.logger.log(
      `publishing cluster ${this.config.cluster} to stream ${this.config.names.stream} (${this.config.names.subjectPrefix}.>) from ${this.kube.server} (${this.kube.source})`,
    );
    this.publisher = new KubePublisher(nc.jetstream(), this.config.names, {
      cluster: this.config.cluster,
      onFailure: (error) => {
        this.logger.warn(`${error.message}: every kind lists again`);
        // the stream may be what was lost (NATS restarted without its store, an operator deleted it): without it, every publish of the relist would fail too
        void ensure()
          .then(
            (made) => made && this.logger.warn(`stream ${this.config.names.stream} was missing: made again`),
            (err: Error) => this.logger.warn(`stream ${this.config.names.stream} not checked: ${err.message}`),
          )
          .finally(() => this.relistAll());
      },
      onStreamMadeAgain: (message) => {
        this.logger.warn(`${message}: every kind lists again`);
        this.relistAll();
      },
    });
    this.client = new HttpKubeClient(this.kube);
    if (this.config.kinds.includes('ippool')) {
      this.statusWriter = new IpPoolStatusWriter(this.client, this.config.names, this.config.cluster, this.logger);
      this.statusWriter.start(nc);
    }
    for (const kind of this.config.kinds) {
      if (OPTIONAL_KINDS.has(kind)) void this.startWhenServed(kind);
      else this.startReflector(kind);
    }
  }

  private startReflector(kind: KubeKind): void {
    const reflector = new Reflector({
      kind,
      client: this.client!,
      sink: this.publisher!,
      logger: this.logger,
      resyncSeconds: this.config.resyncSeconds,
      watchTimeoutSeconds: this.config.watchTimeoutSeconds,
    });
    this.reflectors.push(reflector);
    reflector.start();
  }

  private async startWhenServed(kind: KubeKind): Promise<void> {
    const served = await waitUntilServed(this.client!, kind, this.config.crdProbeSeconds, this.stopping.signal, () => {
      if (!this.absent.has(kind))
        this.logger.log(
          `${kind}: not served by this API server (its CustomResourceDefinition is not installed); probing every ${this.config.crdProbeSeconds} s`,
        );
      this.absent.add(kind);
    });
    if (!served) return;
    if (this.absent.delete(kind)) this.logger.log(`${kind}: served now; watching it`);
    this.startReflector(kind);
  }

  /** A change may be lost downstream: every live object is published again as it is now. */
  private relistAll(): void {
    for (const reflector of this.reflectors) reflector.relist();
  }

  private async ready(): Promise<{ ready: boolean; checks: Record<string, string> }> {
    const checks: Record<string, string> = {};
    const nats =
      this.nc !== null &&
      !this.nc.isClosed() &&
      (await this.nc.flush().then(
        () => true,
        () => false,
      ));
    checks.nats = nats ? 'ok' : 'unreachable';
    for (const kind of this.config.kinds) {
      const reflector = this.reflectors.find((r) => r.kind === kind);
      checks[kind] = this.absent.has(kind) ? 'not served' : reflector?.hasSynced() ? 'synced' : 'listing';
    }
    return { ready: Object.values(checks).every((v) => v === 'ok' || v === 'synced' || v === 'not served'), checks };
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.all(this.reflectors.map((r) => r.stop()));
    await this.publisher?.flush().catch(() => undefined);
    await this.statusWriter?.stop();
    this.client?.close();
    await this.nc?.drain().catch(() => undefined);
    await new Promise((resolve) => (this.health ? this.health.close(resolve) : resolve(undefined)));
  }
}
