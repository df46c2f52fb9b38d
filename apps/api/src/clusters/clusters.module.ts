import { Module } from '@nestjs/common';
import { ClusterPresence } from './cluster-presence';
import { ListedClusters } from './listed-clusters';
import { ClustersController } from './clusters.controller';
import { DeleteClusterHandler } from './delete-cluster.handler';
import { SetClusterLabelsHandler } from './set-cluster-labels.handler';

@Module({
  controllers: [ClustersController],
  providers: [SetClusterLabelsHandler, DeleteClusterHandler, ClusterPresence, ListedClusters],
  exports: [ClusterPresence],
})
export class ClustersModule {}
