import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { upcast } from '@ipledger/domain';
import { AggregateRepository } from '@ipledger/event-store';
import { Pool } from 'pg';
import { AllocationsModule } from './allocations/allocations.module';
import { POD_LOOKUP } from './allocations/pod-lookup';
import { AuditModule } from './audit/audit.module';
import { BlocksModule } from './blocks/blocks.module';
import { CheckModule } from './check/check.module';
import type { Config } from './config';
import { HealthModule } from './health/health.module';
import { IpSetsModule } from './ip-sets/ip-sets.module';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { DatabaseServer } from './infrastructure/database-server';
import { EventWriter } from './infrastructure/event-writer';
import { KeyedMutex } from './infrastructure/keyed-mutex';
import { createPgPool } from './infrastructure/pg-pool';
import { IpamService } from './ipam/ipam.service';
import { TokenRegistry } from './infrastructure/token-registry';
import { TokenReviewer } from './infrastructure/token-reviewer';
import { ReplayQueue } from './infrastructure/replay-queue';
import { CONFIG, PG_POOL } from './infrastructure/tokens';
import { KnownPodLookup } from './kubernetes/known-pod-lookup';
import { KubernetesModule } from './kubernetes/kubernetes.module';
import { ClusterLabels } from './metrics/cluster-labels';
import { InventoryMetrics } from './metrics/inventory.metrics';
import { Metrics } from './metrics/metrics';
import { NodesModule } from './nodes/nodes.module';
import { ClaimsModule } from './claims/claims.module';
import { ClustersModule } from './clusters/clusters.module';
import { ExternalIpamModule } from './external-ipam/external-ipam.module';
import { PoolsModule } from './pools/pools.module';
import { StatefulSetsModule } from './statefulsets/statefulsets.module';

/**
 * Composes the feature modules. Global, so the providers every feature shares (config, the
 * Postgres pool, the repository, the event writer, metrics) are declared once, here.
 */
@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  static forRoot(config: Config): DynamicModule {
    const shared = [
      { provide: CONFIG, useValue: config },
      { provide: DatabaseServer, useValue: new DatabaseServer() },
      {
        provide: PG_POOL,
        // statement_timeout: no single statement of the API holds a database core for long
        useFactory: (server: DatabaseServer) =>
          createPgPool(
            config.databaseUrl,
            { max: 20, statement_timeout: config.statementTimeoutMs || undefined },
            { cancellable: true, jit: false, events: server.events },
          ),
        inject: [DatabaseServer],
      },
      {
        provide: AggregateRepository,
        useFactory: (db: Pool, server: DatabaseServer) => {
          const repository = new AggregateRepository(db, { upcast, cacheBytes: config.aggregateCacheBytes });
          // states cached from the old server may be ahead of what the new one holds: reload them all
          server.onChange(() => repository.forgetAll());
          return repository;
        },
        inject: [PG_POOL, DatabaseServer],
      },
      Metrics,
      ClusterLabels,
      InventoryMetrics,
      KeyedMutex,
      EventWriter,
      // allocations own the port, kubernetes answers it: bound here so neither module imports the other
      { provide: POD_LOOKUP, useClass: KnownPodLookup },
      IpamService,
      ReplayQueue,
    ];
    return {
      module: AppModule,
      global: true,
      imports: [
        CqrsModule.forRoot(),
        PoolsModule,
        NodesModule,
        ClustersModule,
        ClaimsModule,
        ExternalIpamModule,
        AllocationsModule,
        StatefulSetsModule,
        IpSetsModule,
        AuditModule,
        BlocksModule,
        CheckModule,
        HealthModule,
        KubernetesModule.forRoot(config),
      ],
      providers: [...shared, TokenRegistry, TokenReviewer, { provide: APP_FILTER, useClass: AllExceptionsFilter }],
      exports: shared.map((provider) => ('provide' in provider ? provider.provide : provider)),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}
