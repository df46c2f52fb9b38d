import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, InvalidInputError, inCluster, type IpSetKind } from '@ipledger/domain';
import { findIpSet, listIpSets, type IpSetView, type Page } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ClusterPresence } from '../clusters/cluster-presence';
import { ApiRoute } from '../http/api-route';
import { ClusterPrefixParams, IP_SET_KINDS as KINDS, IpSetParams } from '../http/path-params.dto';
import { RouteCluster } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { IpSetDto, IpSetListDto } from './dto/ip-set.dto';
import { ListIpSetsQueryDto } from './dto/list-ip-sets-query.dto';

/**
 * The Deployments' and bare ReplicaSets' ip-sets (pod template annotation ipam.ipledger.io/ip-set):
 * read only, the cluster decides them. A cluster's own: the prefix names it, else the caller's.
 */
@ApiTags('ipsets')
@Controller(['v1/ipsets', 'v1/clusters/:cluster/ipsets'])
export class IpSetsController {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly clusters: ClusterPresence,
  ) {}

  @Get()
  @ApiOkResponse({ type: IpSetListDto })
  @ApiRoute('reader', 'List the ip-sets of Deployments and ReplicaSets, paged', 400, 404)
  async list(
    @Param() _prefix: ClusterPrefixParams,
    @RouteCluster() cluster: string,
    @Query() query: ListIpSetsQueryDto,
  ): Promise<Page<IpSetView>> {
    const inCluster = await this.clusters.forRead(cluster);
    return listIpSets(this.db, { cluster: inCluster, namespace: query.namespace, limit: query.limit, continue: query.continue });
  }

  @Get(':namespace/:kind/:name')
  @ApiOkResponse({ type: IpSetDto })
  @ApiRoute('reader', "Get a Deployment's or ReplicaSet's ip-set", 400, 404)
  async get(@Param() { namespace, kind, name }: IpSetParams, @RouteCluster() cluster: string): Promise<IpSetView> {
    if (!KINDS.includes(kind as IpSetKind))
      throw new InvalidInputError('INVALID_ARGUMENT', `kind must be one of ${KINDS.join(', ')} (got "${kind}")`);
    const of = await this.clusters.forRead(cluster);
    const set = await findIpSet(this.db, { namespace, kind: kind as IpSetKind, name, ...inCluster(of) });
    if (!set) throw new DomainError('IP_SET_NOT_FOUND', `${kind} ${namespace}/${name} has no ip-set in cluster "${of}"`);
    return set;
  }
}
