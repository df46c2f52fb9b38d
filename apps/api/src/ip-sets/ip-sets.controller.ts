import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, InvalidInputError, type IpSetKind } from '@ipledger/domain';
import { findIpSet, listIpSets, type IpSetView, type Page } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ApiRoute } from '../http/api-route';
import { IP_SET_KINDS as KINDS, IpSetParams } from '../http/path-params.dto';
import { PG_POOL } from '../infrastructure/tokens';
import { IpSetDto, IpSetListDto } from './dto/ip-set.dto';
import { ListIpSetsQueryDto } from './dto/list-ip-sets-query.dto';

/** The Deployments' and bare ReplicaSets' ip-sets (pod template annotation ipam.ipledger.io/ip-set): read only, the cluster decides them. */
@ApiTags('ipsets')
@Controller('v1/ipsets')
export class IpSetsController {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  @Get()
  @ApiOkResponse({ type: IpSetListDto })
  @ApiRoute('reader', 'List the ip-sets of Deployments and ReplicaSets, paged', 400)
  list(@Query() query: ListIpSetsQueryDto): Promise<Page<IpSetView>> {
    return listIpSets(this.db, { namespace: query.namespace, limit: query.limit, continue: query.continue });
  }

  @Get(':namespace/:kind/:name')
  @ApiOkResponse({ type: IpSetDto })
  @ApiRoute('reader', "Get a Deployment's or ReplicaSet's ip-set", 400, 404)
  async get(@Param() { namespace, kind, name }: IpSetParams): Promise<IpSetView> {
    if (!KINDS.includes(kind as IpSetKind))
      throw new InvalidInputError('INVALID_ARGUMENT', `kind must be one of ${KINDS.join(', ')} (got "${kind}")`);
    const set = await findIpSet(this.db, { namespace, kind: kind as IpSetKind, name });
    if (!set) throw new DomainError('IP_SET_NOT_FOUND', `${kind} ${namespace}/${name} has no ip-set`);
    return set;
  }
}
