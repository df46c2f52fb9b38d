import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, LabelSelector, type CommandMetadata } from '@ipledger/domain';
import {
  findBlocksAt,
  findNode,
  findPool,
  findPoolAt,
  listBlocks,
  listPools,
  pageOfBlocks,
  type BlockView,
  type Page,
  type PoolView,
} from '@ipledger/projections';
import { BlockListDto } from '../blocks/dto/block.dto';
import { ListBlocksQueryDto } from '../blocks/dto/list-blocks-query.dto';
import type { Pool } from 'pg';
import { AtQueryDto } from '../http/at-query.dto';
import { ReplayQueue } from '../infrastructure/replay-queue';
import { ErrorResponse } from '../http/error-response';
import { Metadata } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { CreatePoolDto } from './dto/create-pool.dto';
import { ListPoolsQueryDto } from './dto/list-pools-query.dto';
import { PoolDto, PoolListDto } from './dto/pool.dto';
import { UpdatePoolDto } from './dto/update-pool.dto';
import { PoolNameParams } from '../http/path-params.dto';
import { ApiFleetRoute, ApiRoute } from '../http/api-route';

@ApiTags('pools')
@Controller('v1/pools')
export class PoolsController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly replays: ReplayQueue,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: PoolDto })
  @ApiConflictResponse({ type: ErrorResponse, description: 'POOL_EXISTS or POOL_OVERLAP' })
  @ApiFleetRoute('admin', 'Create a pool', 400, 409, 413)
  async create(@Body() body: CreatePoolDto, @Metadata() metadata: CommandMetadata): Promise<PoolView> {
    await this.ipam.createPools([body], { metadata });
    return this.get({ name: body.name });
  }

  @Get()
  @ApiOkResponse({ type: PoolListDto })
  @ApiRoute('reader', 'List pools, filtered by labels or node, paged', 400)
  async list(@Query() query: ListPoolsQueryDto) {
    const labelSelector = query.labelSelector === undefined ? undefined : LabelSelector.parse(query.labelSelector);
    let accept: ((pool: PoolView) => boolean) | undefined;
    if (query.node !== undefined) {
      const node = await findNode(this.db, query.node);
      if (!node) throw new DomainError('NODE_NOT_FOUND', `node "${query.node}" does not exist`);
      accept = (pool) => !pool.nodeSelector || LabelSelector.parse(pool.nodeSelector).matches(node.labels);
    }
    return listPools(this.db, { filter: { labelSelector }, accept, limit: query.limit, continue: query.continue });
  }

  @Get(':name')
  @ApiOkResponse({ type: PoolDto })
  @ApiRoute('reader', 'Get a pool, or the pool as it was at an instant', 400, 404)
  async get(@Param() { name }: PoolNameParams, @Query() { at }: AtQueryDto = {}): Promise<PoolView> {
    const pool = at === undefined ? await findPool(this.db, name) : await this.replays.run(() => findPoolAt(this.db, name, new Date(at)));
    if (!pool) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist${at === undefined ? '' : ` at ${at}`}`);
    return pool;
  }

  @Get(':name/blocks')
  @ApiOkResponse({ type: BlockListDto })
  @ApiRoute('reader', "The pool's claimed blocks, with each block's node, used and borrowed counts, now or at an instant", 400, 404)
  async blocks(@Param() { name }: PoolNameParams, @Query() query: ListBlocksQueryDto): Promise<Page<BlockView>> {
    if (query.at !== undefined) {
      const then = await this.replays.run(() => findBlocksAt(this.db, name, new Date(query.at!)));
      if (!then) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist at ${query.at}`);
      return pageOfBlocks(then, query.limit, query.continue);
    }
    const page = await listBlocks(this.db, { filter: { pool: name }, limit: query.limit, continue: query.continue });
    if (page.items.length === 0 && !(await findPool(this.db, name)))
      throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist`);
    return page;
  }

  @Patch(':name')
  @ApiOkResponse({ type: PoolDto })
  @ApiFleetRoute('admin', 'Update a pool (merge patch)', 400, 404, 409, 413)
  async update(@Param() { name }: PoolNameParams, @Body() body: UpdatePoolDto, @Metadata() metadata: CommandMetadata): Promise<PoolView> {
    await this.ipam.updatePool(name, body, { metadata });
    return this.get({ name });
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiConflictResponse({ type: ErrorResponse, description: 'POOL_IN_USE' })
  @ApiFleetRoute('admin', 'Delete a pool', 400, 404, 409)
  async remove(@Param() { name }: PoolNameParams, @Metadata() metadata: CommandMetadata): Promise<void> {
    await this.ipam.deletePool(name, { metadata });
  }
}
