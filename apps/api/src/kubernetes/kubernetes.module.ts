import { Module, type DynamicModule } from '@nestjs/common';
import { ClustersModule } from '../clusters/clusters.module';
import type { Config } from '../config';
import { CONFIG } from '../infrastructure/tokens';
import { BusConnection } from './bus-connection';
import { IpPoolStatusPublisher } from './ippool-status.publisher';
import { KUBERNETES_CONFIG, KubernetesConsumer } from './kubernetes-consumer';

/**
 * The consumer of the watcher's stream; empty with IPAM_KUBERNETES_CONSUMER=off. Global so that
 * /readyz can look for the bus connection and the consumer without depending on whether it exists.
 */
@Module({})
export class KubernetesModule {
  static forRoot(config: Config): DynamicModule {
    if (!config.kubernetes) return { module: KubernetesModule };
    return {
      module: KubernetesModule,
      global: true,
      imports: [ClustersModule],
      providers: [
        { provide: KUBERNETES_CONFIG, useValue: config.kubernetes },
        { provide: BusConnection, useFactory: (appConfig: Config) => new BusConnection(appConfig), inject: [CONFIG] },
        KubernetesConsumer,
        IpPoolStatusPublisher,
      ],
      exports: [BusConnection, KubernetesConsumer],
    };
  }
}
