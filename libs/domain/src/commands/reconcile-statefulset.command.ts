import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { SelectionInput } from '../selection/selection-rule';

export interface StatefulSetSpec extends Omit<SelectionInput, 'pools'> {
  namespace: string;
  name: string;
  replicas: number;
  ordinalsStart?: number;
  /** one pool by name (the `pools` rule of allocations, with a single name) */
  pool?: string;
  /** the node whose labels `matchLabel` and pools' nodeSelectors are matched against */
  node?: string;
}

/** PUT /v1/statefulsets/{namespace}/{name}: reconcile to this desired state (level-triggered, idempotent). */
export class ReconcileStatefulSetCommand {
  constructor(
    readonly spec: StatefulSetSpec,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    /** the StatefulSet's cluster */
    readonly cluster: string,
  ) {}
}
