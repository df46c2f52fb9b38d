import { DEFAULT_STREAM_NAMES, KUBE_KINDS, streamReplicas, type KubeKind, type StreamNames } from '@ipledger/messaging';

export interface WatcherConfig {
  natsUrl: string;
  names: StreamNames;
  streamMaxAgeSeconds: number;
  streamReplicas: number;
  kinds: KubeKind[];
  resyncSeconds: number;
  watchTimeoutSeconds: { min: number; max: number };
  /** /healthz, /readyz and /metrics */
  port: number;
  host: string;
}

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} "${text}" must be a whole number of ${min} or more`);
  return value;
}

export function loadWatcherConfig(env: NodeJS.ProcessEnv = process.env): WatcherConfig {
  const kinds = (env.IPAM_WATCHER_KINDS ?? KUBE_KINDS.join(','))
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !KUBE_KINDS.includes(k as KubeKind));
  if (unknown.length || kinds.length === 0) {
    throw new Error(`IPAM_WATCHER_KINDS "${env.IPAM_WATCHER_KINDS}" must list some of ${KUBE_KINDS.join(', ')}`);
  }
  // watches end after a random time in [max/2, max], as client-go spreads its relists
  const timeout = wholeNumber(env, 'IPAM_WATCHER_TIMEOUT_SECONDS', 600, 2);
  return {
    natsUrl: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    names: {
      stream: env.IPAM_NATS_STREAM || DEFAULT_STREAM_NAMES.stream,
      subjectPrefix: env.IPAM_NATS_SUBJECT_PREFIX || DEFAULT_STREAM_NAMES.subjectPrefix,
    },
    streamMaxAgeSeconds: wholeNumber(env, 'IPAM_NATS_MAX_AGE_SECONDS', 7 * 24 * 3600, 60),
    streamReplicas: streamReplicas(env),
    kinds: kinds as KubeKind[],
    resyncSeconds: wholeNumber(env, 'IPAM_WATCHER_RESYNC_SECONDS', 300),
    watchTimeoutSeconds: { min: Math.ceil(timeout / 2), max: timeout },
    port: wholeNumber(env, 'PORT', 8081),
    host: env.HOST ?? '0.0.0.0',
  };
}
