import { Module } from '@nestjs/common';
import { IpSetsController } from './ip-sets.controller';
import { ReleaseIpSetHandler } from './release-ip-set.handler';

@Module({
  controllers: [IpSetsController],
  providers: [ReleaseIpSetHandler],
})
export class IpSetsModule {}
