import { DEFAULT_CLUSTER } from '@ipledger/domain';
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

/**
 * StatefulSet ranges and workloads' ip-sets are kept in the default cluster (their commands name
 * no cluster): another cluster's are recorded, with this status, and change nothing, rather than
 * act on the default cluster's of the same name.
 */
const inDefaultClusterOnly =
  (applier: Applier): Applier =>
  (ctx, change) =>
    ctx.cluster === DEFAULT_CLUSTER
      ? applier(ctx, change)
      : Promise.resolve(`not applied: ${change.kind} objects are applied in cluster ${DEFAULT_CLUSTER} only`);

/** How each kind's object is brought into the ledger: through the same commands as REST; answers the object's status. */
export const APPLIERS: Record<KubeKind, Applier> = {
  node: applyNode,
  ippool: applyIpPool,
  statefulset: inDefaultClusterOnly(applyStatefulSet),
  pod: applyPod,
  namespace: applyNamespace,
  deployment: inDefaultClusterOnly(applyDeployment),
  replicaset: inDefaultClusterOnly(applyReplicaSet),
  virtualmachine: applyVirtualMachine,
  virtualmachineinstance: applyVirtualMachineInstance,
  ipamclaim: applyIpamClaim,
};
