import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { actingCluster, DomainError, validateClusterName, type CommandMetadata } from '@ipledger/domain';
import { findCluster, listClusters, type ClusterView, type Page } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ApiRoute } from '../http/api-route';
import { ListQueryDto } from '../http/list-query.dto';
import { ClusterNameParams } from '../http/path-params.dto';
import { PutLabelsDto } from '../http/put-labels.dto';
import { CredentialCluster, Metadata } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { ClusterDto, ClusterListDto } from './dto/cluster.dto';

/**
 * The members of the fleet; `default` always exists (everything written before clusters is its).
 * A credential of one cluster changes that cluster only (actingCluster: 403 CLUSTER_FORBIDDEN); any
 * reader may see the fleet's members.
 */
@ApiTags('clusters')
@Controller('v1/clusters')
export class ClustersController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  @Put(':name')
  @ApiOkResponse({ type: ClusterDto })
  @ApiRoute('admin', 'Create a cluster or replace its labels', 400, 413)
  async put(
    @Param() { name }: ClusterNameParams,
    @CredentialCluster() own: string | null,
    @Body() body: PutLabelsDto,
    @Metadata() metadata: CommandMetadata,
  ): Promise<ClusterView> {
    await this.ipam.setClusterLabels(actingCluster(own, name), body.labels, { metadata });
    return this.get({ name });
  }

  @Get()
  @ApiOkResponse({ type: ClusterListDto })
  @ApiRoute('reader', 'List the clusters by name, paged', 400)
  list(@Query() query: ListQueryDto): Promise<Page<ClusterView>> {
    return listClusters(this.db, { limit: query.limit, continue: query.continue });
  }

  @Get(':name')
  @ApiOkResponse({ type: ClusterDto })
  @ApiRoute('reader', 'Get a cluster', 400, 404)
  async get(@Param() { name }: ClusterNameParams): Promise<ClusterView> {
    const cluster = await findCluster(this.db, validateClusterName(name));
    if (!cluster) throw new DomainError('CLUSTER_NOT_FOUND', `cluster "${name}" does not exist`);
    return cluster;
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiRoute('admin', 'Delete a cluster that holds nothing (never `default`)', 400, 404, 409)
  async remove(
    @Param() { name }: ClusterNameParams,
    @CredentialCluster() own: string | null,
    @Metadata() metadata: CommandMetadata,
  ): Promise<void> {
    await this.ipam.deleteCluster(actingCluster(own, name), { metadata });
  }
}
