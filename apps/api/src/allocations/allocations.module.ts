import { Module } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import { DatabaseClock } from '../infrastructure/database-clock';
import { PoolGroupCommit } from '../infrastructure/pool-group-commit';
import { AdoptPodIpsHandler } from './adopt-pod-ips.handler';
import { AllocateIpHandler } from './allocate-ip.handler';
import { AllocationPipeline } from './allocation-pipeline';
import { AllocationReads } from './allocation-reads';
import { AllocationsController } from './allocations.controller';
import { ReleaseIpHandler } from './release-ip.handler';

@Module({
  imports: [ClustersModule],
  controllers: [AllocationsController],
  providers: [AllocateIpHandler, AllocationPipeline, AdoptPodIpsHandler, ReleaseIpHandler, PoolGroupCommit, AllocationReads, DatabaseClock],
})
export class AllocationsModule {}
