import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  AllocateIpCommand,
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
    return this.commands.execute<AllocateIpCommand, AllocateResult<ApiViews>>(new AllocateIpCommand(input, metadata, restriction));
  }

  release(handle: string, { metadata, restriction = null, cluster }: IpamCaller, condition: ReleaseCondition = {}): Promise<void> {
    return this.commands.execute(new ReleaseIpCommand(handle, metadata, condition, restriction, cluster));
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

  setNodeLabels(name: string, labels: Labels, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new SetNodeLabelsCommand(name, labels, metadata, cluster));
  }

  deleteNode(name: string, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteNodeCommand(name, metadata, cluster));
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
