import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  AllocateForClaimCommand,
  AllocateIpCommand,
  assertCallerHandle,
  DeleteClaimCommand,
  PutClaimCommand,
  type ClaimSpec,
  CreatePoolsCommand,
  DeleteClusterCommand,
  DeleteNodeCommand,
  DeletePoolCommand,
  DeleteStatefulSetCommand,
  ReconcileStatefulSetCommand,
  ReleaseIpCommand,
  SetClusterLabelsCommand,
  SetNodeLabelsCommand,
  UpdatePoolCommand,
  type AllocateIpInput,
  type AllocateResult,
  type IpamCaller,
  type IpamCommands,
  type Labels,
  type PoolSpecInput,
  type ReleaseCondition,
  type StatefulSetSpec,
} from '@ipledger/domain';
import type { ApiViews } from './api-views';

/**
 * The contract's commands (libs/domain/src/ipam.ts) over the command bus and its handlers, for the
 * REST controllers. releaseIpSet and adoptPodIps are left out: only the Kubernetes consumer releases
 * an ip-set or adopts a pod's addresses, and it dispatches those commands itself.
 */
@Injectable()
export class IpamService implements Omit<IpamCommands<ApiViews>, 'releaseIpSet' | 'adoptPodIps'> {
  constructor(private readonly commands: CommandBus) {}

  allocate(input: AllocateIpInput, { metadata, restriction = null }: IpamCaller): Promise<AllocateResult<ApiViews>> {
    const { claim } = input;
    if (claim !== undefined)
      return this.commands.execute<AllocateForClaimCommand, AllocateResult<ApiViews>>(
        new AllocateForClaimCommand({ ...input, claim }, metadata, restriction),
      );
    assertCallerHandle(input.handle);
    return this.commands.execute<AllocateIpCommand, AllocateResult<ApiViews>>(new AllocateIpCommand(input, metadata, restriction));
  }

  /** The handle's own addresses, and its claim reference if it is one (ReleaseIpHandler drops it). */
  release(handle: string, { metadata, restriction = null }: IpamCaller, condition: ReleaseCondition = {}): Promise<void> {
    assertCallerHandle(handle);
    return this.commands.execute(new ReleaseIpCommand(handle, metadata, condition, restriction));
  }

  putClaim(name: string, spec: ClaimSpec, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new PutClaimCommand(name, spec, metadata));
  }

  deleteClaim(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteClaimCommand(name, metadata));
  }

  createPools(inputs: PoolSpecInput[], { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new CreatePoolsCommand(inputs, metadata));
  }

  updatePool(name: string, patch: UpdatePoolCommand['patch'], { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new UpdatePoolCommand(name, patch, metadata));
  }

  deletePool(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeletePoolCommand(name, metadata));
  }

  setNodeLabels(name: string, labels: Labels, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new SetNodeLabelsCommand(name, labels, metadata));
  }

  deleteNode(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteNodeCommand(name, metadata));
  }

  setClusterLabels(name: string, labels: Labels, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new SetClusterLabelsCommand(name, labels, metadata));
  }

  deleteCluster(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteClusterCommand(name, metadata));
  }

  reconcileStatefulSet(spec: StatefulSetSpec, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new ReconcileStatefulSetCommand(spec, metadata));
  }

  deleteStatefulSet(namespace: string, name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteStatefulSetCommand(namespace, name, metadata));
  }
}
