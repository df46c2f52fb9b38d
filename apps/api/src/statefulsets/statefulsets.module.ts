import { Module } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import { DeleteStatefulSetHandler } from './delete-statefulset.handler';
import { ReconcileStatefulSetHandler } from './reconcile-statefulset.handler';
import { StatefulSetsController } from './statefulsets.controller';

@Module({
  imports: [ClustersModule],
  controllers: [StatefulSetsController],
  providers: [ReconcileStatefulSetHandler, DeleteStatefulSetHandler],
})
export class StatefulSetsModule {}
