import { Global, Module } from '@nestjs/common';
import { BlockRelease } from './block-release';
import { BlockSweeper } from './block-sweeper';

/** Blocks going back to their pools: after their delay (the sweeper), or with their node (DeleteNodeHandler). */
@Global()
@Module({
  providers: [BlockRelease, BlockSweeper],
  exports: [BlockRelease],
})
export class BlocksModule {}
