import { Module } from '@nestjs/common';
import { ClusterPresence } from './cluster-presence';
import { ClustersController } from './clusters.controller';
import { DeleteClusterHandler } from './delete-cluster.handler';
import { SetClusterLabelsHandler } from './set-cluster-labels.handler';

@Module({
  controllers: [ClustersController],
  providers: [SetClusterLabelsHandler, DeleteClusterHandler, ClusterPresence],
  exports: [ClusterPresence],
})
export class ClustersModule {}
