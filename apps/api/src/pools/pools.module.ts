import { Module } from '@nestjs/common';
import { CreatePoolsHandler } from './create-pools.handler';
import { DeletePoolHandler } from './delete-pool.handler';
import { PoolsController } from './pools.controller';
import { UpdatePoolHandler } from './update-pool.handler';

@Module({
  controllers: [PoolsController],
  providers: [CreatePoolsHandler, UpdatePoolHandler, DeletePoolHandler],
})
export class PoolsModule {}
