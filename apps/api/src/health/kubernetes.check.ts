import type { BusConnection } from '../kubernetes/bus-connection';
import type { KubernetesConsumer } from '../kubernetes/kubernetes-consumer';
import type { ReadinessCheck } from './readiness-check';

/**
 * The Kubernetes consumer: started (its start is tried again until it is), consuming (when that
 * broke off, its stream and durable lost for instance, it is made again) and its bus reachable.
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
    const notConsuming = consumer.notConsuming;
    if (notConsuming) return { status: 'failed', message: `${reachable ? '' : 'the NATS bus is unreachable; '}${notConsuming}` };
    return reachable ? { status: 'ok' } : { status: 'failed', message: 'the NATS bus is unreachable' };
  },
});
