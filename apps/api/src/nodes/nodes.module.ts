import { Module } from '@nestjs/common';
import { DeleteNodeHandler } from './delete-node.handler';
import { NodesController } from './nodes.controller';
import { SetNodeLabelsHandler } from './set-node-labels.handler';

@Module({
  controllers: [NodesController],
  providers: [SetNodeLabelsHandler, DeleteNodeHandler],
})
export class NodesModule {}
