import { Logger } from '@nestjs/common';
import { describeHost, type ConnectionEvents, type ServerInfo } from '@ipledger/event-store';

/**
 * Which PostgreSQL server the API's pool writes to, and each time that may have changed: a
 * connection lost, a write refused by a server turned standby (25006), or a new connection landing
 * on another server (a failover, or a restart) than the one before. Listeners (the aggregate
 * cache, the replication check) start afresh then: what they hold came from the old server, and an
 * asynchronous standby may hold less of it.
 */
export class DatabaseServer {
  private readonly logger = new Logger('postgres');
  private latest: ServerInfo | undefined;
  private readonly listeners: Array<(server: ServerInfo | undefined) => void> = [];

  readonly events: ConnectionEvents = {
    onServer: (server) => {
      if (this.latest?.identity === server.identity) return;
      const previous = this.latest;
      this.latest = server;
      if (previous) {
        this.logger.warn(`writing to another database server now: ${describeHost(server.address)} (was ${describeHost(previous.address)})`);
      }
      this.changed();
    },
    onLost: () => this.changed(),
  };

  /** the server the latest new connection landed on; undefined before the first */
  get current(): ServerInfo | undefined {
    return this.latest;
  }

  onChange(listener: (server: ServerInfo | undefined) => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener(this.latest);
  }
}
