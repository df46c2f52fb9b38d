import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { connect, type NatsConnection } from 'nats';
import { natsConnectOptions } from '@ipledger/messaging';
import type { Config } from '../config';

/**
 * The API's NATS connection. It is made in the background and retried for ever, so REST (and the
 * CNI plugin behind it) keeps working while the bus is away; /readyz tells the difference.
 */
@Injectable()
export class BusConnection implements OnApplicationShutdown {
  private readonly logger = new Logger('nats');
  private connection: NatsConnection | null = null;
  private closed = false;
  readonly ready: Promise<NatsConnection>;

  constructor(config: Config) {
    this.ready = connect({
      ...natsConnectOptions(config.natsUrl, config.natsSecurity),
      name: 'ipledger-api',
      waitOnFirstConnect: true,
      reconnect: true,
      maxReconnectAttempts: -1,
    }).then(async (nc) => {
      if (this.closed) {
        await nc.close();
        throw new Error('the application stopped before NATS answered');
      }
      this.connection = nc;
      this.logger.log(`connected to ${nc.getServer()}`);
      void (async () => {
        for await (const status of nc.status()) this.logger.log(`${status.type} ${JSON.stringify(status.data)}`);
      })();
      return nc;
    });
    // a rejection here surfaces through `ready` to whoever waits on it
    this.ready.catch(() => undefined);
  }

  /** A round trip to the server, bounded in time. */
  async isReachable(timeoutMs = 2000): Promise<boolean> {
    const nc = this.connection;
    if (!nc || nc.isClosed()) return false;
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    return Promise.race([
      nc.flush().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    await this.connection?.drain().catch(() => undefined);
  }
}
