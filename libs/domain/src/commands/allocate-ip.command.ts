import type { NodeRestriction } from '../allocation/node-restriction';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { SelectionInput } from '../selection/selection-rule';

export interface AllocateIpInput extends SelectionInput {
  handle: string;
  /** the cluster of the handle and the node; default: the default cluster */
  cluster?: string;
  node: string;
  namespace: string;
  pod: string;
  podUid?: string;
  network?: string;
  /** default: pod when a podUid is given, else external */
  owner?: string;
  ip?: string;
  /** exact addresses, at most one a family, all or none (the external IPAM contract's requested_ips); not with `ip` */
  ips?: string[];
  families?: number[];
  /** a claim whose addresses the handle takes as one of its references (IpamService routes such a request to AllocateForClaimCommand) */
  claim?: string;
}

export class AllocateIpCommand {
  constructor(
    readonly input: AllocateIpInput,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    /** the node the request's credential is bound to: it may allocate for that node's pods only */
    readonly restriction: NodeRestriction | null = null,
  ) {}
}
