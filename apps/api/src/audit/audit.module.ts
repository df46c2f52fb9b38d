import { Module } from '@nestjs/common';
import { EventsController } from '../events/events.controller';
import { FeedLagMetrics } from '../events/feed-lag.metrics';
import { AuditController } from './audit.controller';

/** What happened: the events feed (and its lag) and an address's history. */
@Module({
  controllers: [EventsController, AuditController],
  providers: [FeedLagMetrics],
})
export class AuditModule {}
