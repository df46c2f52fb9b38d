import { Module } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import { CheckController } from './check.controller';

@Module({ imports: [ClustersModule], controllers: [CheckController] })
export class CheckModule {}
