import { Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CqrsModule } from '@nestjs/cqrs';
import { upcast } from '@ipledger/domain';
import { AggregateRepository } from '@ipledger/event-store';
import { Pool } from 'pg';
import { AllocateIpHandler } from './allocations/allocate-ip.handler';
import { AllocationReads } from './allocations/allocation-reads';
import { AllocationsController } from './allocations/allocations.controller';
import { ReleaseIpHandler } from './allocations/release-ip.handler';
import type { Config } from './config';
import { AuditController } from './audit/audit.controller';
import { EventsController } from './events/events.controller';
import { FeedLagMetrics } from './events/feed-lag.metrics';
import { HealthController } from './health/health.controller';
import { BusConnection } from './kubernetes/bus-connection';
import { KUBERNETES_CONFIG, KubernetesConsumer } from './kubernetes/kubernetes-consumer';
import { AllExceptionsFilter } from './http/all-exceptions.filter';
import { AuthGuard } from './http/auth.guard';
import { RequestDeadlineInterceptor } from './http/request-deadline.interceptor';
import { TokenRegistry } from './infrastructure/token-registry';
import { EventWriter } from './infrastructure/event-writer';
import { KeyedMutex } from './infrastructure/keyed-mutex';
import { PoolGroupCommit } from './infrastructure/pool-group-commit';
import { createPgPool } from './infrastructure/pg-pool';
import { Metrics, MetricsInterceptor } from './metrics/metrics';
import { MetricsController } from './metrics/metrics.controller';
import { CONFIG, PG_POOL } from './infrastructure/tokens';
import { DeleteNodeHandler } from './nodes/delete-node.handler';
import { NodesController } from './nodes/nodes.controller';
import { SetNodeLabelsHandler } from './nodes/set-node-labels.handler';
import { CreatePoolsHandler } from './pools/create-pools.handler';
import { DeletePoolHandler } from './pools/delete-pool.handler';
import { PoolsController } from './pools/pools.controller';
import { UpdatePoolHandler } from './pools/update-pool.handler';
import { DeleteStatefulSetHandler } from './statefulsets/delete-statefulset.handler';
import { ReconcileStatefulSetHandler } from './statefulsets/reconcile-statefulset.handler';
import { StatefulSetsController } from './statefulsets/statefulsets.controller';

@Module({})
export class AppModule implements OnApplicationShutdown {
  constructor(@Inject(PG_POOL) private readonly pool: Pool) {}

  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [CqrsModule.forRoot()],
      controllers: [
        PoolsController,
        NodesController,
        AllocationsController,
        StatefulSetsController,
        EventsController,
        AuditController,
        HealthController,
        MetricsController,
      ],
      providers: [
        { provide: CONFIG, useValue: config },
        {
          provide: PG_POOL,
          // statement_timeout: no single statement of the API holds a database core for long
          useFactory: () =>
            createPgPool(
              { connectionString: config.databaseUrl, max: 20, statement_timeout: config.statementTimeoutMs || undefined },
              { cancellable: true },
            ),
        },
        {
          provide: AggregateRepository,
          useFactory: (pool: Pool) => new AggregateRepository(pool, { upcast, cacheBytes: config.aggregateCacheBytes }),
          inject: [PG_POOL],
        },
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_INTERCEPTOR, useClass: MetricsInterceptor },
        { provide: APP_INTERCEPTOR, useClass: RequestDeadlineInterceptor },
        Metrics,
        TokenRegistry,
        FeedLagMetrics,
        KeyedMutex,
        PoolGroupCommit,
        AllocationReads,
        EventWriter,
        CreatePoolsHandler,
        UpdatePoolHandler,
        DeletePoolHandler,
        SetNodeLabelsHandler,
        DeleteNodeHandler,
        AllocateIpHandler,
        ReleaseIpHandler,
        ReconcileStatefulSetHandler,
        DeleteStatefulSetHandler,
        ...(config.kubernetes
          ? [
              { provide: KUBERNETES_CONFIG, useValue: config.kubernetes },
              { provide: BusConnection, useFactory: () => new BusConnection(config) },
              KubernetesConsumer,
            ]
          : []),
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }
}
