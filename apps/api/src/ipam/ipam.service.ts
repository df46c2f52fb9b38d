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
  DEFAULT_CLUSTER,
} from '@ipledger/domain';
import { currentRequestContext } from '../infrastructure/current-request';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import type { ApiViews } from './api-views';

/**
 * The contract's commands (libs/domain/src/ipam.ts) over the command bus and its handlers, for the
 * REST controllers, each in a transaction of its own retried on conflict within the request's
 * deadline (ownTransaction). releaseIpSet and adoptPodIps are left out: only the Kubernetes consumer releases
 * an ip-set or adopts a pod's addresses, and it dispatches those commands itself.
 */
@Injectable()
export class IpamService implements Omit<IpamCommands<ApiViews>, 'releaseIpSet' | 'adoptPodIps'> {
  constructor(private readonly commands: CommandBus) {}

  allocate(input: AllocateIpInput, { metadata, restriction = null }: IpamCaller): Promise<AllocateResult<ApiViews>> {
    const { claim } = input;
    if (claim !== undefined)
      return this.commands.execute<AllocateForClaimCommand, AllocateResult<ApiViews>>(
        new AllocateForClaimCommand({ ...input, claim }, metadata, ownTransaction(), restriction),
      );
    assertCallerHandle(input.handle);
    return this.commands.execute<AllocateIpCommand, AllocateResult<ApiViews>>(
      new AllocateIpCommand(input, metadata, ownTransaction(), restriction),
    );
  }

  /** The handle's addresses, or, for a claim's reference, that reference (idempotent). */
  release(handle: string, { metadata, restriction = null, cluster }: IpamCaller, condition: ReleaseCondition = {}): Promise<void> {
    assertCallerHandle(handle);
    return this.commands.execute(new ReleaseIpCommand(handle, metadata, ownTransaction(), condition, restriction, cluster));
  }

  putClaim(name: string, spec: ClaimSpec, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new PutClaimCommand(name, spec, metadata, ownTransaction()));
  }

  deleteClaim(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteClaimCommand(name, metadata, ownTransaction()));
  }

  createPools(inputs: PoolSpecInput[], { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new CreatePoolsCommand(inputs, metadata, ownTransaction()));
  }

  updatePool(name: string, patch: UpdatePoolCommand['patch'], { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new UpdatePoolCommand(name, patch, metadata, ownTransaction()));
  }

  deletePool(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeletePoolCommand(name, metadata, ownTransaction()));
  }

  setNodeLabels(name: string, labels: Labels, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new SetNodeLabelsCommand(name, labels, metadata, ownTransaction(), cluster));
  }

  deleteNode(name: string, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteNodeCommand(name, metadata, ownTransaction(), cluster));
  }

  setClusterLabels(name: string, labels: Labels, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new SetClusterLabelsCommand(name, labels, metadata, ownTransaction()));
  }

  deleteCluster(name: string, { metadata }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteClusterCommand(name, metadata, ownTransaction()));
  }

  reconcileStatefulSet(spec: StatefulSetSpec, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new ReconcileStatefulSetCommand(spec, metadata, ownTransaction(), cluster ?? DEFAULT_CLUSTER));
  }

  deleteStatefulSet(namespace: string, name: string, { metadata, cluster }: IpamCaller): Promise<void> {
    return this.commands.execute(new DeleteStatefulSetCommand(namespace, name, metadata, ownTransaction(), cluster ?? DEFAULT_CLUSTER));
  }
}

/** A REST request's unit of work: its own transactions, deciding again after a conflict until the request's signal fires. */
const ownTransaction = (): OwnTransaction => new OwnTransaction({ retries: true, signal: currentRequestContext()?.signal });
