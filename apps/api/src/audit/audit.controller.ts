import { Controller, Get, Inject, Param, Query, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, ipArgument, PoolAggregate, validateNetwork } from '@ipledger/domain';
import { GENESIS_HASH } from '@ipledger/event-store';
import { formatIp } from '@ipledger/ip';
import { ipHistory, poolHistory } from '@ipledger/projections';
import type { Pool } from 'pg';
import { toEventDto } from '../events/dto/event.dto';
import { PG_POOL } from '../infrastructure/tokens';
import { ChainSealer } from './chain-sealer';
import { AuditHeadDto } from './dto/audit-head.dto';
import { IpHistoryDto } from './dto/ip-history.dto';
import { IpHistoryQueryDto } from './dto/ip-history-query.dto';
import { PoolHistoryDto } from './dto/pool-history.dto';
import { ListQueryDto } from '../http/list-query.dto';
import { IpParams, PoolNameParams } from '../http/path-params.dto';
import { ApiRoute } from '../http/api-route';

/** Questions only the log can answer: who held an address when, what happened to a pool, what the log's head is. */
@ApiTags('audit')
@Controller('v1')
export class AuditController {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly sealer: ChainSealer,
  ) {}

  @Get('ips/:ip/history')
  @ApiOkResponse({ type: IpHistoryDto })
  @ApiRoute('reader', 'Every allocation, release and reservation of an address, oldest first, a page at a time', 400)
  async ipHistory(@Param() { ip }: IpParams, @Query() query: IpHistoryQueryDto): Promise<IpHistoryDto> {
    if (query.network !== undefined) validateNetwork(query.network);
    return ipHistory(this.db, formatIp(ipArgument(ip)), query);
  }

  @Get('pools/:name/history')
  @ApiOkResponse({ type: PoolHistoryDto, description: "the pool's own events, oldest first" })
  @ApiRoute('reader', "A pool's own events, oldest first, a page at a time", 400, 404)
  async poolHistory(@Param() { name }: PoolNameParams, @Query() query: ListQueryDto): Promise<PoolHistoryDto> {
    const page = await poolHistory(this.db, `${PoolAggregate.streamPrefix}-${name}`, query);
    if (page.items.length === 0 && !query.continue) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" has no history`);
    return { items: page.items.map(toEventDto), continue: page.continue };
  }

  @Get('audit/head')
  @ApiOkResponse({
    type: AuditHeadDto,
    description:
      'the head of the audit chain; events of the last moments may not be in it yet. Once the stored chain no longer extends the head this replica sealed (a rewrite), still that head',
  })
  @ApiRoute('reader', 'The head of the audit chain, to keep outside the database and check with `ipledger verify-chain --head`')
  async auditHead(): Promise<AuditHeadDto> {
    const head = await this.sealer.head();
    // a forged head is never served: after a difference, the head sealed before it (or none)
    if (!head && this.sealer.difference)
      throw new ServiceUnavailableException({
        code: 'UNAVAILABLE',
        message: `the audit chain is broken: ${this.sealer.difference.message}`,
      });
    return head
      ? { count: head.count, hash: head.hash, at: head.at.toISOString() }
      : { count: 0, hash: GENESIS_HASH, at: new Date().toISOString() };
  }
}
