import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  AllocateForClaimCommand,
  AllocateIpCommand,
  assertCallerHandle,
  assertNodeMayAllocate,
  assertReferenceFree,
  ClaimAggregate,
  claimHolding,
  decideAddReference,
  clusterOf,
  DomainError,
  parseAllocationRequest,
  referenceKey,
  validateClaimName,
  type AllocateResult,
} from '@ipledger/domain';
import { formatIp } from '@ipledger/ip';
import { asReference, type AllocationView } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import type { ApiViews } from '../ipam/api-views';
import { PG_POOL } from '../infrastructure/tokens';
import { assertPoolsServeCluster } from './claim-cluster-check';
import { ClaimHoldings } from './claim-holdings';

/** A claim's address as a reference is answered it (asReference). */
export type ClaimAllocationView = AllocationView & { claim: string };

/**
 * An allocation naming a claim. The claim's addresses are allocated by the one allocation path
 * (AllocateIpCommand) for its holding handle, an external owner's (no pod's deletion frees them):
 * a claim holding none gets new ones, one holding some is answered them. Then the handle is
 * appended as a reference. The two appends are two transactions (the allocation path decides in
 * its pools' group commits): a crash between them leaves the holding's addresses with no claim
 * event, which the caller's retry repairs (the allocation, retried, answers what the holding has).
 */
@CommandHandler(AllocateForClaimCommand)
export class AllocateForClaimHandler implements ICommandHandler<AllocateForClaimCommand, AllocateResult<ApiViews>> {
  constructor(
    private readonly writer: EventWriter,
    private readonly commands: CommandBus,
    private readonly holdings: ClaimHoldings,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async execute({ input, metadata, unit, restriction }: AllocateForClaimCommand): Promise<AllocateResult<ApiViews>> {
    const { claim: name, ...request } = input;
    validateClaimName(name);
    const spec = parseAllocationRequest({ ...request, handle: assertCallerHandle(request.handle) });
    // a node's credential takes a claim's addresses for a pod of its own node: the claim, not the node, owns them
    assertNodeMayAllocate(restriction, { ...spec, owner: 'pod' });
    const owner = { handle: spec.handle, cluster: clusterOf(spec), node: spec.node, namespace: spec.namespace, pod: spec.pod };
    const reference = { ...owner, network: spec.network };
    return attempts(unit, async () => {
      const claim = await this.writer.load(ClaimAggregate, name, unit);
      // refused before any address is allocated: a third reference takes nothing
      assertReferenceFree(claim.state, name, reference);
      // the holding stays in the claim's cluster (its first reference's), whichever cluster a later reference is of
      const cluster = claim.state.exists ? claim.state.cluster : reference.cluster;
      const holding = { ...request, cluster, handle: claimHolding(name), owner: 'external', podUid: undefined };
      const held = await this.commands.execute<AllocateIpCommand, AllocateResult<ApiViews>>(new AllocateIpCommand(holding, metadata, unit));
      // addresses held before: chosen for another reference's cluster, so checked for this one's
      if (!held.created && !claim.state.references.has(referenceKey(reference)))
        await assertPoolsServeCluster(this.db, name, held.items, reference.cluster);
      const notHeld = spec.ips.map(formatIp).filter((asked) => !held.items.some((item) => item.ip === asked));
      if (notHeld.length > 0)
        throw new DomainError(
          'IP_IN_USE',
          `claim "${name}" holds ${held.items.map((item) => item.ip).join(', ')}, not ${notHeld.join(', ')}`,
        );
      const addresses = held.items.map(({ ip, pool }) => ({ ip, pool }));
      await this.holdings.append(claim, name, decideAddReference(claim.state, name, reference, addresses), addresses, metadata, unit);
      const items: ClaimAllocationView[] = held.items.map((item) => asReference(item, owner, name));
      return { created: held.created || !claim.state.exists, items };
    });
  }
}
