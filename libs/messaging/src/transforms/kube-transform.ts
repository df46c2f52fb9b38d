import type { KubeKind } from '../kube-kind';
import type { KubeObject } from '../kube-object';
import { trimIpamClaim } from './ipamclaim.transform';
import { trimIpPool } from './ippool.transform';
import { trimVirtualMachine } from './kubevirt.transform';
import { trimNamespace } from './namespace.transform';
import { trimNode } from './node.transform';
import { trimPod } from './pod.transform';
import { trimStatefulSet } from './statefulset.transform';
import { trimWorkload } from './workload.transform';

/**
 * What each kind keeps, as client-go's `SetTransform`: applied by the watcher to every object it
 * receives, before its store or the bus sees it, and by the API to every message it reads (an
 * older watcher's whole objects included) before anything is applied or stored. A field an applier
 * reads must be kept here, or it never arrives.
 */
export const KUBE_TRANSFORMS: Record<KubeKind, (object: KubeObject) => KubeObject> = {
  node: trimNode,
  pod: trimPod,
  statefulset: trimStatefulSet,
  ippool: trimIpPool,
  namespace: trimNamespace,
  deployment: trimWorkload,
  replicaset: trimWorkload,
  virtualmachine: trimVirtualMachine,
  virtualmachineinstance: trimVirtualMachine,
  ipamclaim: trimIpamClaim,
};

export const trimObject = (kind: KubeKind, object: KubeObject): KubeObject => KUBE_TRANSFORMS[kind](object);
