import { randomUUID } from 'node:crypto';
import type { KubeObjectMeta } from '@ipledger/messaging';
import type { KubeObjectInput } from './fake-kube-api';

/** A ReplicaSet as its controller makes it; a Deployment's names that Deployment as its controlling owner. */
export function replicaSetObject(namespace: string, name: string, deployment?: string): KubeObjectInput {
  return {
    metadata: {
      name,
      namespace,
      ownerReferences: deployment
        ? [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment, uid: randomUUID(), controller: true }]
        : [],
    },
  };
}

/**
 * What ReplicaSet `owner` puts on each pod it makes: itself as controlling owner, the template's
 * annotations with its ip-set, and (`hash`, a Deployment's ReplicaSet) the pod-template-hash label.
 */
export function ipSetPodMetadata(of: {
  owner: string;
  ipSet: string;
  hash?: string;
  annotations?: Record<string, string>;
}): Pick<KubeObjectMeta, 'labels' | 'annotations' | 'ownerReferences'> {
  return {
    labels: of.hash ? { 'pod-template-hash': of.hash } : {},
    annotations: { ...of.annotations, 'ipam.ipledger.io/ip-set': of.ipSet },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: of.owner, uid: randomUUID(), controller: true }],
  };
}
