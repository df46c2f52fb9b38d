import { Module } from '@nestjs/common';
import { EventsController } from '../events/events.controller';
import { FeedLagMetrics } from '../events/feed-lag.metrics';
import { AuditChainMetrics } from './audit-chain.metrics';
import { AuditController } from './audit.controller';
import { ChainSealer } from './chain-sealer';

/** What happened: the events feed (and its lag), an address's history, and the audit chain that seals it all. */
@Module({
  controllers: [EventsController, AuditController],
  providers: [FeedLagMetrics, ChainSealer, AuditChainMetrics],
  // /readyz reports whether the chain still extends what this replica sealed
  exports: [ChainSealer],
})
export class AuditModule {}
