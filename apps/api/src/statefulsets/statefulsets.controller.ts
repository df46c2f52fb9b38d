import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, type CommandMetadata } from '@ipledger/domain';
import { findStatefulSet, type ReservationView } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ClusterPresence } from '../clusters/cluster-presence';
import { Metadata, RouteCluster } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { PutStatefulSetDto } from './dto/put-statefulset.dto';
import { ReservationDto } from './dto/reservation.dto';
import { StatefulSetParams } from '../http/path-params.dto';
import { ApiRoute } from '../http/api-route';

/** A cluster's StatefulSets: two clusters may each have `shop/db` (the prefix names the cluster, else the caller's). */
@ApiTags('statefulsets')
@Controller(['v1/statefulsets', 'v1/clusters/:cluster/statefulsets'])
export class StatefulSetsController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly clusters: ClusterPresence,
  ) {}

  @Put(':namespace/:name')
  @ApiOkResponse({ type: ReservationDto })
  @ApiRoute('admin', "Reserve or rescale a StatefulSet's continuous range", 400, 409, 413)
  async put(
    @Param() { namespace, name }: StatefulSetParams,
    @RouteCluster() cluster: string,
    @Body() body: PutStatefulSetDto,
    @Metadata() metadata: CommandMetadata,
  ): Promise<ReservationView> {
    await this.clusters.writeIn(cluster, metadata, (inCluster) =>
      this.ipam.reconcileStatefulSet({ ...body, namespace, name }, { metadata, cluster: inCluster }),
    );
    return this.get({ namespace, name }, cluster);
  }

  @Get(':namespace/:name')
  @ApiOkResponse({ type: ReservationDto })
  @ApiRoute('reader', "Get a StatefulSet's reservation", 400, 404)
  async get(@Param() { namespace, name }: StatefulSetParams, @RouteCluster() cluster: string): Promise<ReservationView> {
    const reservation = await findStatefulSet(this.db, await this.clusters.forRead(cluster), namespace, name);
    if (!reservation) {
      throw new DomainError('STATEFULSET_NOT_FOUND', `StatefulSet ${namespace}/${name} has no reservation in cluster "${cluster}"`);
    }
    return reservation;
  }

  @Delete(':namespace/:name')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'the range and every address its pods hold are released' })
  @ApiRoute('admin', "Release a StatefulSet's reservation", 400, 404, 409)
  async remove(
    @Param() { namespace, name }: StatefulSetParams,
    @RouteCluster() cluster: string,
    @Metadata() metadata: CommandMetadata,
  ): Promise<void> {
    await this.ipam.deleteStatefulSet(namespace, name, { metadata, cluster: await this.clusters.forRead(cluster) });
  }
}
