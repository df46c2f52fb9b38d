import { Inject, Module, type OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { AuditModule } from '../audit/audit.module';
import { ChainSealer } from '../audit/chain-sealer';
import type { Config } from '../config';
import { DatabaseServer } from '../infrastructure/database-server';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { BusConnection } from '../kubernetes/bus-connection';
import { KubernetesConsumer } from '../kubernetes/kubernetes-consumer';
import { MetricsController } from '../metrics/metrics.controller';
import { MIGRATIONS_DIR } from '../migrations-dir';
import { auditChainCheck } from './audit-chain.check';
import { databaseCheck } from './database.check';
import { HealthController } from './health.controller';
import { kubernetesCheck } from './kubernetes.check';
import { Readiness } from './readiness';
import { READINESS_CHECKS, type ReadinessCheck } from './readiness-check';
import { replicationCheck } from './replication.check';
import { schemaCheck } from './schema.check';

/** The operator's endpoints: /healthz, /readyz and /metrics. */
@Module({
  imports: [AuditModule],
  controllers: [HealthController, MetricsController],
  providers: [
    {
      provide: READINESS_CHECKS,
      useFactory: (
        db: Pool,
        server: DatabaseServer,
        config: Config,
        sealer: ChainSealer,
        bus?: BusConnection,
        consumer?: KubernetesConsumer,
      ) => [
        databaseCheck(db),
        schemaCheck(db, MIGRATIONS_DIR),
        replicationCheck(db, server, config.requireSyncReplication, config.embeddedDatabase),
        kubernetesCheck(bus, consumer),
        auditChainCheck(sealer),
      ],
      // the bus and the consumer are absent with IPAM_KUBERNETES_CONSUMER=off
      inject: [
        PG_POOL,
        DatabaseServer,
        CONFIG,
        ChainSealer,
        { token: BusConnection, optional: true },
        { token: KubernetesConsumer, optional: true },
      ],
    },
    Readiness,
  ],
})
export class HealthModule implements OnApplicationBootstrap {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[]) {}

  /** At start, the replication report (a warning when the server has no synchronous standby); it never holds the start up. */
  onApplicationBootstrap(): void {
    for (const check of this.checks) void check.atStart?.().catch(() => undefined);
  }
}
