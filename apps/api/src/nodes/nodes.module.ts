import { Module } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import { DeleteNodeHandler } from './delete-node.handler';
import { NodesController } from './nodes.controller';
import { SetNodeLabelsHandler } from './set-node-labels.handler';

@Module({
  imports: [ClustersModule],
  controllers: [NodesController],
  providers: [SetNodeLabelsHandler, DeleteNodeHandler],
})
export class NodesModule {}
