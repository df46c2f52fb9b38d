import { Module } from '@nestjs/common';
import { AllocateIpHandler } from './allocate-ip.handler';
import { AllocationsController } from './allocations.controller';
import { ReleaseIpHandler } from './release-ip.handler';

@Module({
  controllers: [AllocationsController],
  providers: [AllocateIpHandler, ReleaseIpHandler],
})
export class AllocationsModule {}
