import { Module } from '@nestjs/common';
import { DeleteStatefulSetHandler } from './delete-statefulset.handler';
import { ReconcileStatefulSetHandler } from './reconcile-statefulset.handler';
import { StatefulSetsController } from './statefulsets.controller';

@Module({
  controllers: [StatefulSetsController],
  providers: [ReconcileStatefulSetHandler, DeleteStatefulSetHandler],
})
export class StatefulSetsModule {}
