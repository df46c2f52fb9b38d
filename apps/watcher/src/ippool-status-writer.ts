import {
  ipPoolStatusSubject,
  KUBE_RESOURCE_PATHS,
  type IpPoolStatus,
  type IpPoolStatusMessage,
  type StreamNames,
} from '@ipledger/messaging';
import type { NatsConnection, Subscription } from 'nats';
import { KubeApiError, type HttpKubeClient } from '@ipledger/kube';
import type { ReflectorLogger } from './kube/reflector';

interface Written {
  uid: string;
  /** the status as the API published it (no times) */
  text: string;
  /** when each condition took its current status */
  since: Map<string, { status: string; at: string }>;
}

/**
 * Writes the IPPool statuses the API publishes into each IPPool's status subresource (RBAC: patch
 * on ippools/status, nothing else). Only what differs from what it wrote last is patched; a
 * condition's lastTransitionTime moves only when its status does. The patch names the object's uid,
 * so a status never lands on a recreated IPPool of the same name.
 */
export class IpPoolStatusWriter {
  private readonly written = new Map<string, Written>();
  private subscription: Subscription | null = null;
  private done: Promise<void> | null = null;
  patches = 0;
  failures = 0;

  constructor(
    private readonly client: HttpKubeClient,
    private readonly names: StreamNames,
    private readonly cluster: string,
    private readonly logger: ReflectorLogger,
  ) {}

  start(nc: NatsConnection): void {
    const subscription = nc.subscribe(ipPoolStatusSubject(this.names, this.cluster));
    this.subscription = subscription;
    this.done = (async () => {
      // one at a time: a pool's statuses are written in the order published
      for await (const message of subscription) {
        try {
          await this.write(JSON.parse(message.string()) as IpPoolStatusMessage);
        } catch (err) {
          this.failures++;
          this.logger.warn(`IPPool status not written: ${(err as Error).message}`);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    this.subscription?.unsubscribe();
    await this.done;
  }

  private async write({ name, uid, status }: IpPoolStatusMessage): Promise<void> {
    const text = JSON.stringify(status);
    const last = this.written.get(name);
    if (last && last.uid === uid && last.text === text) return;
    const now = new Date().toISOString();
    const since = new Map<string, { status: string; at: string }>();
    const conditions = status.conditions.map((condition) => {
      const previous = last?.uid === uid ? last.since.get(condition.type) : undefined;
      const at = previous && previous.status === condition.status ? previous.at : now;
      since.set(condition.type, { status: condition.status, at });
      return { ...condition, lastTransitionTime: at };
    });
    const patch: { metadata: { uid: string }; status: IpPoolStatus } = { metadata: { uid }, status: { ...status, conditions } };
    try {
      await this.client.mergePatch(`${KUBE_RESOURCE_PATHS.ippool}/${encodeURIComponent(name)}/status`, patch);
    } catch (err) {
      // deleted, or recreated with another uid (409): its own status comes with the next publication
      if (err instanceof KubeApiError && (err.statusCode === 404 || err.statusCode === 409)) return;
      throw err;
    }
    this.patches++;
    this.written.set(name, { uid, text, since });
  }
}
