import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  chooseSelection,
  DomainError,
  InvalidInputError,
  validateDns1123Label,
  validateDns1123Subdomain,
  type CommandMetadata,
} from '@ipledger/domain';
import {
  explainPoolForNode,
  findBlocksAt,
  findEligiblePools,
  findNode,
  findPoolsWithBlocksOfAt,
  listBlocks,
  pageOfBlocks,
  type BlockView,
  type NodeView,
  type Page,
} from '@ipledger/projections';
import { BlockListDto } from '../blocks/dto/block.dto';
import { ListBlocksQueryDto } from '../blocks/dto/list-blocks-query.dto';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { Metadata, RouteCluster } from '../http/request-context';
import { ClusterPresence } from '../clusters/cluster-presence';
import { ReplayQueue } from '../infrastructure/replay-queue';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { NodeDto } from './dto/node.dto';
import { NodePoolsDto } from './dto/node-pools.dto';
import { NodePoolsQueryDto } from './dto/node-pools-query.dto';
import { PutLabelsDto } from '../http/put-labels.dto';
import { NodeNameParams } from '../http/path-params.dto';
import { ApiRoute } from '../http/api-route';
import { storedSelection, type StoredSelection } from '../kubernetes/known-pods';

@ApiTags('nodes')
@Controller(['v1/nodes', 'v1/clusters/:cluster/nodes'])
export class NodesController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
    @Inject(CONFIG) private readonly config: Config,
    private readonly replays: ReplayQueue,
    private readonly clusters: ClusterPresence,
  ) {}

  @Put(':name')
  @ApiOkResponse({ type: NodeDto })
  @ApiRoute('admin', "Create or replace a node's labels", 400, 409, 413)
  async put(
    @Param() { name }: NodeNameParams,
    @RouteCluster() cluster: string,
    @Body() body: PutLabelsDto,
    @Metadata() metadata: CommandMetadata,
  ): Promise<NodeView> {
    await this.clusters.writeIn(cluster, metadata, (inCluster) =>
      this.ipam.setNodeLabels(name, body.labels, { metadata, cluster: inCluster }),
    );
    return this.get({ name }, cluster);
  }

  @Get(':name')
  @ApiOkResponse({ type: NodeDto })
  @ApiRoute('reader', 'Get a node', 400, 404)
  async get(@Param() { name }: NodeNameParams, @RouteCluster() cluster: string): Promise<NodeView> {
    const node = await findNode(this.db, name, await this.clusters.forRead(cluster));
    if (!node) throw new DomainError('NODE_NOT_FOUND', `node "${name}" does not exist in cluster "${cluster}"`);
    return node;
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiRoute('admin', 'Delete a node', 400, 404, 409)
  async remove(@Param() { name }: NodeNameParams, @RouteCluster() cluster: string, @Metadata() metadata: CommandMetadata): Promise<void> {
    await this.ipam.deleteNode(name, { metadata, cluster: await this.clusters.forRead(cluster) });
  }

  @Get(':name/blocks')
  @ApiOkResponse({ type: BlockListDto })
  @ApiRoute('reader', 'The blocks a node claimed, in every pool, now or at an instant: what a route controller announces towards it', 400)
  async blocks(
    @Param() { name }: NodeNameParams,
    @RouteCluster() cluster: string,
    @Query() query: ListBlocksQueryDto,
  ): Promise<Page<BlockView>> {
    const of = await this.clusters.forRead(cluster);
    if (query.at === undefined)
      return listBlocks(this.db, { filter: { node: name, cluster: of }, limit: query.limit, continue: query.continue });
    const at = new Date(query.at);
    // one pool at a time, in one of the replica's replay slots: each is a replay of its stream
    const then = await this.replays.run(async () => {
      const blocks: BlockView[] = [];
      for (const pool of await findPoolsWithBlocksOfAt(this.db, name, of, at))
        blocks.push(...((await findBlocksAt(this.db, pool, at)) ?? []).filter((block) => block.node === name && block.cluster === of));
      return blocks;
    });
    return pageOfBlocks(then, query.limit, query.continue);
  }

  @Get(':name/pools')
  @ApiOkResponse({ type: NodePoolsDto })
  @ApiRoute('reader', 'The pools a node may use, and why others are left out (or why one pool is)', 400, 404)
  async pools(
    @Param() { name }: NodeNameParams,
    @RouteCluster() cluster: string,
    @Query() query: NodePoolsQueryDto,
  ): Promise<NodePoolsDto> {
    await this.clusters.forRead(cluster);
    const selection = await this.annotated(name, cluster, query);
    const { rule, source, families } = chooseSelection(query, selection?.stored.annotated ?? null, this.config.defaultMatchLabel);
    if (query.pool !== undefined) validateDns1123Label(query.pool, 'pool name');
    // `families` is one of 4, 6, 4,6 (the DTO's rule)
    const asked = families ?? (query.families ? (query.families.split(',').map(Number) as (4 | 6)[]) : [4, 6]);
    const { eligible, excluded } =
      query.pool === undefined
        ? await findEligiblePools(this.db, rule, name, asked, selection?.reads, query.network ?? null, cluster)
        : await explainPoolForNode(this.db, rule, name, query.pool, asked, selection?.reads, query.network ?? null, cluster);
    return query.explain ? { items: eligible, excluded, chosenBy: source } : { items: eligible };
  }

  /**
   * The pool annotations of the namespace (and pod) asked about, as the watcher last sent them (a
   * pod not seen yet has none), read with the node and the pools they name.
   */
  private async annotated(node: string, cluster: string, { namespace, pod }: NodePoolsQueryDto): Promise<StoredSelection | null> {
    if (namespace === undefined) {
      if (pod !== undefined) throw new InvalidInputError('INVALID_ARGUMENT', 'pod needs namespace');
      return null;
    }
    validateDns1123Label(namespace, 'namespace');
    if (pod !== undefined) validateDns1123Subdomain(pod, 'pod name');
    return storedSelection(this.db, cluster, namespace, pod === undefined ? null : { name: pod, uid: null }, node);
  }
}
