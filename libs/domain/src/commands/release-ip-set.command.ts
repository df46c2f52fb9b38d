import type { CommandMetadata } from '../command-metadata';
import type { IpSetRef } from '../ip-set/ip-set';

/**
 * Releases a Deployment's or bare ReplicaSet's ip-set (its workload is deleted): idempotent.
 * Addresses its pods still hold stay theirs until each pod's DEL or deletion.
 */
export class ReleaseIpSetCommand {
  constructor(
    readonly ref: IpSetRef,
    readonly metadata: CommandMetadata,
  ) {}
}
