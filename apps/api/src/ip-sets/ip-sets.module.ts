import { Module } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import { IpSetsController } from './ip-sets.controller';
import { ReleaseIpSetHandler } from './release-ip-set.handler';

@Module({
  imports: [ClustersModule],
  controllers: [IpSetsController],
  providers: [ReleaseIpSetHandler],
})
export class IpSetsModule {}
