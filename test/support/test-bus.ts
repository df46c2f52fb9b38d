import { randomBytes } from 'node:crypto';
import { connect, type ConnectionOptions, type JetStreamManager, type NatsConnection } from 'nats';
import { ensureStream, KubePublisher, natsServers, type StreamNames } from '@ipledger/messaging';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export interface TestBus {
  names: StreamNames;
  durable: string;
  nc: NatsConnection;
  jsm: JetStreamManager;
  publisher: KubePublisher;
  /** the environment that points an API (or a watcher) at this suite's stream */
  env: NodeJS.ProcessEnv;
  /** resolves once the API's durable consumer has nothing pending and nothing unacknowledged */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A JetStream stream, subject prefix and durable name of this suite's own, on the real NATS server
 * (or on `natsUrl`: a private server, or a cluster's servers with `replicas` copies of the stream).
 */
export async function createTestBus(
  suite: string,
  natsUrl = NATS_URL,
  options: { replicas?: number; connect?: Partial<ConnectionOptions> } = {},
): Promise<TestBus> {
  const id = `${suite.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  const names = { stream: `TEST_${id}`.toUpperCase(), subjectPrefix: `test.${id}` };
  const durable = `api_${id}`;
  const replicas = options.replicas ?? 1;
  const nc = await connect({ servers: natsServers(natsUrl), maxReconnectAttempts: -1, ...options.connect });
  let jsm: JetStreamManager;
  // a cluster just started elects its JetStream leader first
  for (let attempt = 1; ; attempt++) {
    try {
      jsm = await nc.jetstreamManager();
      await ensureStream(jsm, names, 3600, replicas);
      break;
    } catch (err) {
      if (attempt >= 60) {
        await nc.close();
        throw err;
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  return {
    names,
    durable,
    nc,
    jsm,
    publisher: new KubePublisher(nc.jetstream(), names),
    env: {
      NATS_URL: natsUrl,
      IPAM_KUBERNETES_CONSUMER: 'on',
      IPAM_NATS_STREAM: names.stream,
      IPAM_NATS_SUBJECT_PREFIX: names.subjectPrefix,
      IPAM_NATS_DURABLE: durable,
      IPAM_NATS_REPLICAS: String(replicas),
    },
    async idle(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const info = await jsm.consumers.info(names.stream, durable).catch(() => null);
        if (info && info.num_pending === 0 && info.num_ack_pending === 0) return;
        if (Date.now() > deadline)
          throw new Error(`consumer ${durable} still busy: ${JSON.stringify(info && { p: info.num_pending, a: info.num_ack_pending })}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await jsm.streams.delete(names.stream).catch(() => undefined);
      await nc.close();
    },
  };
}
