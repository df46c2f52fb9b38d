import { Module } from '@nestjs/common';
import { MetricsController } from '../metrics/metrics.controller';
import { HealthController } from './health.controller';

/** The operator's endpoints: /healthz, /readyz and /metrics. */
@Module({
  controllers: [HealthController, MetricsController],
})
export class HealthModule {}
