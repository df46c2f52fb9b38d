import { Controller, Get, Inject, Param, Query, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DomainError, ipArgument, PoolAggregate } from '@ipledger/domain';
import { GENESIS_HASH, readStream } from '@ipledger/event-store';
import { formatIp } from '@ipledger/ip';
import { ipHistory } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventPageDto, toEventDto } from '../events/dto/event.dto';
import { PG_POOL } from '../infrastructure/tokens';
import { ChainSealer } from './chain-sealer';
import { AuditHeadDto } from './dto/audit-head.dto';
import { IpHistoryDto } from './dto/ip-history.dto';
import { StreamPageQueryDto } from './dto/stream-page-query.dto';
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
  @ApiRoute('reader', 'Every allocation, release and reservation of an address', 400)
  async ipHistory(@Param() { ip }: IpParams): Promise<IpHistoryDto> {
    return { items: await ipHistory(this.db, formatIp(ipArgument(ip))) };
  }

  @Get('pools/:name/history')
  @ApiOkResponse({ type: EventPageDto, description: "the pool's own events, oldest first" })
  @ApiRoute('reader', "A pool's own events, oldest first", 400, 404)
  async poolHistory(@Param() { name }: PoolNameParams, @Query() query: StreamPageQueryDto): Promise<EventPageDto> {
    const events = await readStream(this.db, `${PoolAggregate.streamPrefix}-${name}`, query.after ?? 0, { limit: query.limit });
    if (events.length === 0 && !query.after) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" has no history`);
    const last = events.at(-1);
    return { items: events.map(toEventDto), next: events.length === query.limit && last ? String(last.version) : null };
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
