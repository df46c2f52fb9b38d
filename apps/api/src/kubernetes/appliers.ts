import type { KubeKind, ObjectChange } from '@ipledger/messaging';
import type { ApplyContext } from './apply-context';
import { applyIpamClaim } from './ipamclaim.applier';
import { applyIpPool } from './ippool.applier';
import { applyVirtualMachine, applyVirtualMachineInstance } from './kubevirt.applier';
import { applyNamespace } from './namespace.applier';
import { applyNode } from './node.applier';
import { applyPod } from './pod.applier';
import { applyStatefulSet } from './statefulset.applier';
import { applyDeployment, applyReplicaSet } from './workload.applier';

type Applier = (ctx: ApplyContext, change: ObjectChange) => Promise<string>;

/** How each kind's object is brought into the ledger: through the same commands as REST; answers the object's status. */
export const APPLIERS: Record<KubeKind, Applier> = {
  node: applyNode,
  ippool: applyIpPool,
  statefulset: applyStatefulSet,
  pod: applyPod,
  namespace: applyNamespace,
  deployment: applyDeployment,
  replicaset: applyReplicaSet,
  virtualmachine: applyVirtualMachine,
  virtualmachineinstance: applyVirtualMachineInstance,
  ipamclaim: applyIpamClaim,
};
