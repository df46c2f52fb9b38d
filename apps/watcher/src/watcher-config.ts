import {
  KUBE_KINDS,
  natsSecurity,
  natsUrl,
  streamMaxAgeSeconds,
  streamNames,
  streamReplicas,
  type KubeKind,
  type NatsSecurity,
  type StreamNames,
} from '@ipledger/messaging';
import { DEFAULT_CLUSTER, validateClusterName } from '@ipledger/domain';
import { wholeNumber } from '@ipledger/runtime';

export interface WatcherConfig {
  /** IPAM_CLUSTER: the cluster this watcher watches, named by every message it publishes */
  cluster: string;
  natsUrl: string;
  natsSecurity: NatsSecurity;
  names: StreamNames;
  streamMaxAgeSeconds: number;
  streamReplicas: number;
  kinds: KubeKind[];
  resyncSeconds: number;
  /** IPAM_WATCHER_CRD_PROBE_SECONDS: how often a kind whose CustomResourceDefinition is missing is asked for again */
  crdProbeSeconds: number;
  watchTimeoutSeconds: { min: number; max: number };
  /** /healthz, /readyz and /metrics */
  port: number;
  host: string;
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
  const timeout = wholeNumber(env, 'IPAM_WATCHER_TIMEOUT_SECONDS', 600, { min: 2 });
  return {
    cluster: validateClusterName(env.IPAM_CLUSTER ?? DEFAULT_CLUSTER),
    natsUrl: natsUrl(env),
    natsSecurity: natsSecurity(env, natsUrl(env)),
    names: streamNames(env),
    streamMaxAgeSeconds: streamMaxAgeSeconds(env),
    streamReplicas: streamReplicas(env),
    kinds: kinds as KubeKind[],
    resyncSeconds: wholeNumber(env, 'IPAM_WATCHER_RESYNC_SECONDS', 300),
    crdProbeSeconds: wholeNumber(env, 'IPAM_WATCHER_CRD_PROBE_SECONDS', 60, { min: 1 }),
    watchTimeoutSeconds: { min: Math.ceil(timeout / 2), max: timeout },
    port: wholeNumber(env, 'PORT', 8081, { max: 65535 }),
    host: env.HOST ?? '0.0.0.0',
  };
}
