import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import { actingCluster, adoptedHandle, DomainError, InvalidInputError, type CommandMetadata, type NodeRestriction } from '@ipledger/domain';
import {
  decodeContinue,
  encodeContinue,
  findAllocationsAt,
  findAllocationsByHandle,
  findReferencedAllocations,
  listAllocations,
  type AllocationView,
} from '@ipledger/projections';
import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { ErrorResponse } from '../http/error-response';
import { CredentialCluster, Metadata, Restriction, RouteCluster } from '../http/request-context';
import { ClusterPresence } from '../clusters/cluster-presence';
import { ReplayQueue } from '../infrastructure/replay-queue';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { AllocationItemsDto, AllocationListDto } from './dto/allocation.dto';
import { CreateAllocationDto } from './dto/create-allocation.dto';
import { ListAllocationsQueryDto } from './dto/list-allocations-query.dto';
import { ReleaseAllocationQueryDto } from './dto/release-allocation-query.dto';
import { ClusterPrefixParams, HandleParams } from '../http/path-params.dto';
import { ApiRoute } from '../http/api-route';

const NODE_FORBIDDEN =
  "FORBIDDEN: the token's role may not do this; NODE_FORBIDDEN: a credential bound to a node, for another node's handle or pod, or an external address (admin's to do)";

@ApiTags('allocations')
@Controller(['v1/allocations', 'v1/clusters/:cluster/allocations'])
export class AllocationsController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly replays: ReplayQueue,
    private readonly clusters: ClusterPresence,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: AllocationItemsDto, description: 'new addresses, one per family' })
  @ApiOkResponse({ type: AllocationItemsDto, description: 'the handle already held these addresses (a retried request)' })
  @ApiConflictResponse({ type: ErrorResponse, description: 'POOL_EXHAUSTED, IP_IN_USE, NO_ELIGIBLE_POOL, CLAIM_REFERENCES_FULL' })
  @ApiForbiddenResponse({ type: ErrorResponse, description: NODE_FORBIDDEN })
  @ApiRoute('allocator', 'Allocate addresses to a handle (idempotent per handle)', 400, 404, 409, 413)
  async allocate(
    @Param() { cluster: prefix }: ClusterPrefixParams,
    @CredentialCluster() own: string | null,
    @Body() body: CreateAllocationDto,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<AllocationItemsDto> {
    if (prefix !== undefined && body.cluster !== undefined && body.cluster !== prefix) {
      actingCluster(own, body.cluster);
      throw new InvalidInputError('INVALID_ARGUMENT', `cluster "${body.cluster}" is not the route's cluster "${prefix}"`);
    }
    const result = await this.clusters.writeIn(actingCluster(own, prefix ?? body.cluster), metadata, (cluster) =>
      this.ipam.allocate({ ...body, cluster }, { metadata, restriction }),
    );
    void res.status(result.created ? 201 : 200);
    return { items: result.items };
  }

  @Get()
  @ApiOkResponse({ type: AllocationListDto })
  @ApiRoute('reader', 'List allocations, filtered, or as they were at an instant', 400)
  async list(
    @Param() { cluster: prefix }: ClusterPrefixParams,
    @CredentialCluster() own: string | null,
    @Query() query: ListAllocationsQueryDto,
  ): Promise<AllocationListDto> {
    const { limit, continue: token, at, cluster: asked, ...rest } = query;
    if (prefix !== undefined && asked !== undefined && asked !== prefix) {
      actingCluster(own, asked);
      throw new InvalidInputError('INVALID_ARGUMENT', `cluster "${asked}" is not the route's cluster "${prefix}"`);
    }
    // without a cluster named, a fleet-wide credential lists every cluster's
    const named = prefix ?? asked;
    const cluster = named === undefined && own === null ? undefined : await this.clusters.forRead(actingCluster(own, named));
    const filter = { ...rest, cluster };
    if (at === undefined) return listAllocations(this.db, filter, { limit, continue: token });
    if (filter.pool === undefined)
      throw new InvalidInputError('INVALID_ARGUMENT', 'at needs pool: the past is replayed one pool at a time');
    const then = (await this.replays.run(() => findAllocationsAt(this.db, filter.pool!, new Date(at)))).filter(
      (a) =>
        (filter.cluster === undefined || a.cluster === filter.cluster) &&
        (filter.node === undefined || a.node === filter.node) &&
        (filter.namespace === undefined || a.namespace === filter.namespace) &&
        (filter.pod === undefined || a.pod === filter.pod) &&
        (filter.network === undefined || a.network === filter.network),
    );
    return pageOf(then, limit, token);
  }

  @Get(':handle')
  @ApiOkResponse({ type: AllocationItemsDto })
  @ApiRoute('reader', "Get the addresses a handle holds (a claim's reference: the claim's, with `claim`)", 400, 404)
  async get(@Param() { handle }: HandleParams, @RouteCluster() cluster: string): Promise<AllocationItemsDto> {
    const inCluster = await this.clusters.forRead(cluster);
    const items = await findAllocationsByHandle(this.db, handle, inCluster);
    if (items.length === 0) items.push(...(await findReferencedAllocations(this.db, handle, inCluster)));
    if (items.length === 0) throw new DomainError('ALLOCATION_NOT_FOUND', `handle "${handle}" holds no address in cluster "${cluster}"`);
    return { items };
  }

  @Delete(':handle')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'released, or nothing was held' })
  @ApiForbiddenResponse({ type: ErrorResponse, description: NODE_FORBIDDEN })
  @ApiRoute(
    'allocator',
    "Release a handle's addresses (a claim's reference: that reference only), and with podUid the pod's adopted ones (idempotent)",
    400,
    409,
  )
  async release(
    @Param() { handle }: HandleParams,
    @RouteCluster() cluster: string,
    @Query() { podUid }: ReleaseAllocationQueryDto,
    @Metadata() metadata: CommandMetadata,
    @Restriction() restriction: NodeRestriction | null,
  ): Promise<void> {
    await this.ipam.release(handle, { metadata, restriction, cluster });
    // the sandbox's handle never held what was adopted for its pod: that goes under the pod's own (each release idempotent, the DEL retried whole)
    if (podUid !== undefined) await this.ipam.release(adoptedHandle(podUid), { metadata, restriction, cluster }, { podUid });
  }
}

/** Pages a list sorted by (cluster, handle, family) with the same continue tokens as the live list. */
function pageOf(items: AllocationView[], limit: number, token: string | undefined): AllocationListDto {
  const after = decodeContinue(token, ['string', 'string', 'smallint']);
  const key = (a: AllocationView) => [a.cluster, a.handle, a.family] as const;
  const sorted = [...items].sort((a, b) => compareKeys(key(a), key(b)));
  const rest = after ? sorted.filter((a) => compareKeys(key(a), after as unknown as ReturnType<typeof key>) > 0) : sorted;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return { items: page, continue: rest.length > limit && last ? encodeContinue([...key(last)]) : null };
}

function compareKeys(a: readonly [string, string, number], b: readonly [string, string, number]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
