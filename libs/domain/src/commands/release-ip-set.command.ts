import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';
import type { IpSetRef } from '../ip-set/ip-set';

/**
 * The workload is deleted: releases its ip-set, and records its deletion (`uid`) so that a pod
 * allocating after it reserves no new set. Idempotent. Addresses its pods still hold stay theirs
 * until each pod's DEL or deletion. `tombstone` false: a ReplicaSet of a Deployment, whose pods
 * use the Deployment's set and never one of its own (a set a pod named for it is still released).
 */
export class ReleaseIpSetCommand {
  constructor(
    readonly ref: IpSetRef,
    readonly uid: string,
    readonly tombstone: boolean,
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
  ) {}
}
