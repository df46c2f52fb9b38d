import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiConflictResponse, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AllocateIpCommand, DomainError, ReleaseIpCommand, type CommandMetadata } from '@ipledger/domain';
import { findAllocationsByHandle, listAllocations } from '@ipledger/projections';
import type { FastifyReply } from 'fastify';
import type { Pool } from 'pg';
import { ErrorResponse } from '../http/error-response';
import { Metadata } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import type { AllocateIpResult } from './allocate-ip.handler';
import { AllocationItemsDto, AllocationListDto } from './dto/allocation.dto';
import { CreateAllocationDto } from './dto/create-allocation.dto';
import { ListAllocationsQueryDto } from './dto/list-allocations-query.dto';

@ApiTags('allocations')
@Controller('v1/allocations')
export class AllocationsController {
  constructor(
    private readonly commands: CommandBus,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  @Post()
  @ApiCreatedResponse({ type: AllocationItemsDto, description: 'new addresses, one per family' })
  @ApiOkResponse({ type: AllocationItemsDto, description: 'the handle already held these addresses (a retried request)' })
  @ApiConflictResponse({ type: ErrorResponse, description: 'POOL_EXHAUSTED, IP_IN_USE, NO_ELIGIBLE_POOL' })
  async allocate(
    @Body() body: CreateAllocationDto,
    @Metadata() metadata: CommandMetadata,
    @Res({ passthrough: true }) res: FastifyReply,
  ): Promise<AllocationItemsDto> {
    const result: AllocateIpResult = await this.commands.execute(new AllocateIpCommand(body, metadata));
    void res.status(result.created ? 201 : 200);
    return { items: result.items };
  }

  @Get()
  @ApiOkResponse({ type: AllocationListDto })
  list(@Query() query: ListAllocationsQueryDto): Promise<AllocationListDto> {
    const { limit, continue: token, ...filter } = query;
    return listAllocations(this.db, filter, { limit, continue: token });
  }

  @Get(':handle')
  @ApiOkResponse({ type: AllocationItemsDto })
  async get(@Param('handle') handle: string): Promise<AllocationItemsDto> {
    const items = await findAllocationsByHandle(this.db, handle);
    if (items.length === 0) throw new DomainError('ALLOCATION_NOT_FOUND', `handle "${handle}" holds no address`);
    return { items };
  }

  @Delete(':handle')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'released, or nothing was held' })
  async release(@Param('handle') handle: string, @Metadata() metadata: CommandMetadata): Promise<void> {
    await this.commands.execute(new ReleaseIpCommand(handle, metadata));
  }
}
