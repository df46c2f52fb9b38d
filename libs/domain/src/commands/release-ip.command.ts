import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { NodeRestriction } from '../allocation/node-restriction';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { ReleaseCondition } from '../events';

/** Releases every address a handle holds (CNI DEL): idempotent. */
export class ReleaseIpCommand {
  constructor(
    readonly handle: string,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    readonly condition: ReleaseCondition = {},
    /** the node the request's credential is bound to: it may release that node's pods' addresses only */
    readonly restriction: NodeRestriction | null = null,
    /** the handle's cluster */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
