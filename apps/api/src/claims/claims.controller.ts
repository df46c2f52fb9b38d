import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, validateClaimName, type CommandMetadata } from '@ipledger/domain';
import { findClaim, listClaims, type ClaimView, type Page } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ApiRoute } from '../http/api-route';
import { ListQueryDto } from '../http/list-query.dto';
import { ClaimNameParams } from '../http/path-params.dto';
import { Metadata } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import { ClaimDto, ClaimListDto } from './dto/claim.dto';
import { PutClaimDto } from './dto/put-claim.dto';

/** Claims: addresses that outlive a pod. Made by allocations (transient) or here (persistent); their references come and go with POST/DELETE /v1/allocations. */
@ApiTags('claims')
@Controller('v1/claims')
export class ClaimsController {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  @Put(':name')
  @ApiOkResponse({ type: ClaimDto })
  @ApiRoute('admin', 'Create a persistent claim, or make a transient one persistent (idempotent)', 400, 413)
  async put(@Param() { name }: ClaimNameParams, @Body() body: PutClaimDto, @Metadata() metadata: CommandMetadata): Promise<ClaimView> {
    await this.ipam.putClaim(name, body, { metadata });
    return this.get({ name });
  }

  @Get()
  @ApiOkResponse({ type: ClaimListDto })
  @ApiRoute('reader', 'List the claims by name, paged', 400)
  list(@Query() query: ListQueryDto): Promise<Page<ClaimView>> {
    return listClaims(this.db, { limit: query.limit, continue: query.continue });
  }

  @Get(':name')
  @ApiOkResponse({ type: ClaimDto })
  @ApiRoute('reader', 'Get a claim with its addresses and references', 400, 404)
  async get(@Param() { name }: ClaimNameParams): Promise<ClaimView> {
    const claim = await findClaim(this.db, validateClaimName(name));
    if (!claim) throw new DomainError('CLAIM_NOT_FOUND', `claim "${name}" does not exist`);
    return claim;
  }

  @Delete(':name')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'deleted: its references dropped, its addresses released' })
  @ApiRoute('admin', 'Delete a claim, releasing its addresses', 400, 404)
  async remove(@Param() { name }: ClaimNameParams, @Metadata() metadata: CommandMetadata): Promise<void> {
    await this.ipam.deleteClaim(name, { metadata });
  }
}
