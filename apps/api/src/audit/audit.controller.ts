import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, ipArgument, PoolAggregate } from '@ipledger/domain';
import { GENESIS_HASH, readChainHead, readStream } from '@ipledger/event-store';
import { formatIp } from '@ipledger/ip';
import { ipHistory } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventPageDto, toEventDto } from '../events/dto/event.dto';
import { PG_POOL } from '../infrastructure/tokens';
import { AuditHeadDto } from './dto/audit-head.dto';
import { IpHistoryDto } from './dto/ip-history.dto';
import { StreamPageQueryDto } from './dto/stream-page-query.dto';
import { PathParams } from '../http/limits';
import { ApiRoute } from '../http/api-route';

/** Questions only the log can answer: who held an address when, what happened to a pool, what the log's head is. */
@ApiTags('audit')
@Controller('v1')
export class AuditController {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  @Get('ips/:ip/history')
  @PathParams('ip')
  @ApiOkResponse({ type: IpHistoryDto })
  @ApiRoute('reader', 'Every allocation, release and reservation of an address', 400)
  async ipHistory(@Param('ip') ip: string): Promise<IpHistoryDto> {
    return { items: await ipHistory(this.db, formatIp(ipArgument(ip))) };
  }

  @Get('pools/:name/history')
  @PathParams('name')
  @ApiOkResponse({ type: EventPageDto, description: "the pool's own events, oldest first" })
  @ApiRoute('reader', "A pool's own events, oldest first", 400, 404)
  async poolHistory(@Param('name') name: string, @Query() query: StreamPageQueryDto): Promise<EventPageDto> {
    const events = await readStream(this.db, `${PoolAggregate.streamPrefix}-${name}`, query.after ?? 0, { limit: query.limit });
    if (events.length === 0 && !query.after) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" has no history`);
    const last = events.at(-1);
    return { items: events.map(toEventDto), next: events.length === query.limit && last ? String(last.version) : null };
  }

  @Get('audit/head')
  @ApiOkResponse({ type: AuditHeadDto, description: 'the head of the audit chain; events of the last moments may not be in it yet' })
  @ApiRoute('reader', 'The head of the audit chain, to keep outside the database and check with `ipledger verify-chain --head`')
  async auditHead(): Promise<AuditHeadDto> {
    const head = await readChainHead(this.db);
    return head
      ? { count: head.count, hash: head.hash, at: head.at.toISOString() }
      : { count: 0, hash: GENESIS_HASH, at: new Date().toISOString() };
  }
}
