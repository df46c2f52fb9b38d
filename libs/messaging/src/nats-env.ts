import { DEFAULT_NATS_URL, wholeNumber } from '@ipledger/runtime';
import { DEFAULT_STREAM_NAMES, type StreamNames } from './subjects';

/** The bus settings the API and the watcher read alike: they must agree on them to meet. */
export const natsUrl = (env: NodeJS.ProcessEnv): string => env.NATS_URL ?? DEFAULT_NATS_URL;

export const streamNames = (env: NodeJS.ProcessEnv): StreamNames => ({
  stream: env.IPAM_NATS_STREAM || DEFAULT_STREAM_NAMES.stream,
  subjectPrefix: env.IPAM_NATS_SUBJECT_PREFIX || DEFAULT_STREAM_NAMES.subjectPrefix,
});

/** IPAM_NATS_REPLICAS: copies of the stream a NATS cluster keeps (1, or 3 or 5 for a cluster to survive losing nodes). */
export const streamReplicas = (env: NodeJS.ProcessEnv): number => wholeNumber(env, 'IPAM_NATS_REPLICAS', 1, { min: 1, max: 5 });

/** IPAM_NATS_MAX_AGE_SECONDS: how long the stream keeps messages, whichever of the API and the watcher creates it. */
export const streamMaxAgeSeconds = (env: NodeJS.ProcessEnv): number =>
  wholeNumber(env, 'IPAM_NATS_MAX_AGE_SECONDS', 7 * 24 * 3600, { min: 60 });
