import { Module } from '@nestjs/common';
import type { Pool } from 'pg';
import { PG_POOL } from '../infrastructure/tokens';
import { BusConnection } from '../kubernetes/bus-connection';
import { MetricsController } from '../metrics/metrics.controller';
import { MIGRATIONS_DIR } from '../migrations-dir';
import { databaseCheck } from './database.check';
import { HealthController } from './health.controller';
import { kubernetesCheck } from './kubernetes.check';
import { Readiness } from './readiness';
import { READINESS_CHECKS } from './readiness-check';
import { schemaCheck } from './schema.check';

/** The operator's endpoints: /healthz, /readyz and /metrics. */
@Module({
  controllers: [HealthController, MetricsController],
  providers: [
    {
      provide: READINESS_CHECKS,
      useFactory: (db: Pool, bus?: BusConnection) => [databaseCheck(db), schemaCheck(db, MIGRATIONS_DIR), kubernetesCheck(bus)],
      // the bus is absent with IPAM_KUBERNETES_CONSUMER=off
      inject: [PG_POOL, { token: BusConnection, optional: true }],
    },
    Readiness,
  ],
})
export class HealthModule {}
