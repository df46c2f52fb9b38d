import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { readAll } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { PG_POOL } from '../infrastructure/tokens';
import { EventPageDto, toEventDto } from './dto/event.dto';
import { ListEventsQueryDto } from './dto/list-events-query.dto';
import { ApiRoute } from '../http/api-route';

@ApiTags('audit')
@Controller('v1/events')
export class EventsController {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  /** The global log in commit order; paging never skips an event that committed late. */
  @Get()
  @ApiOkResponse({ type: EventPageDto })
  @ApiRoute('reader', 'Read the event log in commit order', 400)
  async list(@Query() query: ListEventsQueryDto): Promise<EventPageDto> {
    const page = await readAll(this.db, {
      after: query.after ?? null,
      limit: query.limit,
      streamId: query.streamId,
      types: query.type === undefined ? undefined : [query.type],
    });
    return { items: page.events.map(toEventDto), next: page.next };
  }
}
