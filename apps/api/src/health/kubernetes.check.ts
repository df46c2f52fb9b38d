import type { BusConnection } from '../kubernetes/bus-connection';
import type { KubernetesConsumer } from '../kubernetes/kubernetes-consumer';
import type { ReadinessCheck } from './readiness-check';

/**
 * The Kubernetes consumer: started (its start is tried again until it is) and its bus reachable.
 * Not required: REST (and every CNI ADD behind it) works without NATS, and a replica taken out of
 * the Service for it would fail the very pods (NATS's own included) that need an address to bring
 * the bus back; every replica consumes the same durable, so one that cannot is alerted on, not routed around.
 */
export const kubernetesCheck = (bus: BusConnection | undefined, consumer: KubernetesConsumer | undefined): ReadinessCheck => ({
  name: 'kubernetes',
  required: false,
  run: async () => {
    if (!bus || !consumer) return { status: 'off', message: 'IPAM_KUBERNETES_CONSUMER=off: REST only' };
    const reachable = await bus.isReachable();
    const notRunning = consumer.notRunning;
    if (notRunning) {
      const away = reachable ? '' : 'the NATS bus is unreachable; ';
      const why = notRunning.lastFailure ? `: ${notRunning.lastFailure}` : ' yet';
      return { status: 'failed', message: `${away}the consumer has not started${why}` };
    }
    return reachable ? { status: 'ok' } : { status: 'failed', message: 'the NATS bus is unreachable' };
  },
});
