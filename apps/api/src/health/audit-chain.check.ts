import type { ChainSealer } from '../audit/chain-sealer';
import type { ReadinessCheck } from './readiness-check';

/**
 * The audit chain still extends the head this replica sealed (chain-sealer.ts). Not required:
 * allocation does not need the chain, and taking every replica out of the Service over a rewrite
 * of the log would stop the cluster's pods, not the rewrite; it is alerted on
 * (`ipledger_audit_chain_broken`) and each replica's sealing stops.
 */
export const auditChainCheck = (sealer: ChainSealer): ReadinessCheck => ({
  name: 'audit-chain',
  required: false,
  run: () => {
    const difference = sealer.difference;
    return Promise.resolve(difference ? { status: 'failed', message: difference.message, link: difference.link } : { status: 'ok' });
  },
});
