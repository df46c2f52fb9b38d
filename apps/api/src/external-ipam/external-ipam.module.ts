import { Module } from '@nestjs/common';
import { ExternalIpamAdapter } from './external-ipam.adapter';
import { ExternalIpamController } from './external-ipam.controller';

/** /external-ipam: OKEP-6831's contract as an adapter over the use cases (docs/external-ipam.md). */
@Module({
  controllers: [ExternalIpamController],
  providers: [ExternalIpamAdapter],
})
export class ExternalIpamModule {}
