import type { BusConnection } from '../kubernetes/bus-connection';
import type { ReadinessCheck } from './readiness-check';

/**
 * The Kubernetes consumer's bus. Not required: REST (and every CNI ADD behind it) works without
 * NATS, and a replica taken out of the Service for it would fail the very pods (NATS's own
 * included) that need an address to bring the bus back.
 */
export const kubernetesCheck = (bus: BusConnection | undefined): ReadinessCheck => ({
  name: 'kubernetes',
  required: false,
  run: async () => {
    if (!bus) return { status: 'off', message: 'IPAM_KUBERNETES_CONSUMER=off: REST only' };
    return (await bus.isReachable()) ? { status: 'ok' } : { status: 'failed', message: 'the NATS bus is unreachable' };
  },
});
