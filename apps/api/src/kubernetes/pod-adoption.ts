import type { Logger } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import { AdoptPodIpsCommand, DomainError, type CommandMetadata, type UnitOfWork } from '@ipledger/domain';
import { objectKey, type KubeObject } from '@ipledger/messaging';
import { adoptionCandidates, clusterKey, readPoolCidrs, type AdoptionCandidate } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ReadBatcher } from '../infrastructure/read-batcher';
import { isConflict } from '../infrastructure/unit-of-work';
import type { AdoptPodIpsResult } from '../allocations/adopt-pod-ips.handler';
import type { ClusterChange } from './kube-message';

/**
 * Adopting a running cluster: a running pod's addresses that lie in a pool and that nobody holds
 * become the pod's (AdoptPodIpsCommand), whichever came first, the pod or the pool. A live pod's
 * message looks once it is recorded (the pods that meet are read together, one statement); pools
 * created or resized since the last look (REST or IPPool) look at every pod; each pod sync looks
 * at all of them again, for work cut short (a crash between a pod's record and its adoption).
 * Every cluster's pods are adopted, each into its own cluster, from the pools that cluster may use.
 */
export class PodAdoption {
  private readonly byPod: ReadBatcher<string, AdoptionCandidate[]>;
  /** pool name -> cidr, as last looked at */
  private pools = new Map<string, string>();

  constructor(
    private readonly db: Pool,
    private readonly commands: CommandBus,
    private readonly logger: Logger,
  ) {
    this.byPod = new ReadBatcher(async (keys) => {
      const found = groupBy(await adoptionCandidates(db, keys, null), (c) => clusterKey(c.cluster, c.key));
      return keys.map((key) => found.get(key) ?? []);
    });
  }

  /** A live pod's message, once recorded: only one that reports addresses while running reads anything. */
  async podRecorded({ cluster, object }: ClusterChange, metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    if (!mayAdopt(object)) return;
    await this.adopt(await this.byPod.read(clusterKey(cluster, objectKey(object))), metadata, unit);
  }

  /** Pools created, or whose cidr changed, since the last look: the pods' addresses they now cover. */
  async poolsChanged(metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    const rows = await readPoolCidrs(this.db);
    const changed = rows.filter((row) => this.pools.get(row.name) !== row.cidr).map((row) => row.name);
    if (changed.length) await this.adopt(await adoptionCandidates(this.db, null, changed), metadata, unit);
    this.pools = new Map(rows.map((row) => [row.name, row.cidr]));
  }

  /** Every pod the consumer knows (a pod sync). */
  async everywhere(metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    await this.adopt(await adoptionCandidates(this.db, null, null), metadata, unit);
  }

  /** One command per pod (of its cluster), all its families at once; a refusal (the address was taken meanwhile) is logged, not retried. */
  private async adopt(candidates: AdoptionCandidate[], metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    await Promise.all(
      [...groupBy(candidates, (c) => `${c.cluster}\0${c.key}\0${c.uid}`).values()].map(async (addresses) => {
        const [{ cluster, key, uid, node }] = addresses;
        const [namespace, pod] = key.split('/');
        const ips = addresses.map((a) => a.ip).join(', ');
        try {
          const result: AdoptPodIpsResult = await this.commands.execute(
            new AdoptPodIpsCommand({ namespace, pod, podUid: uid, node }, addresses, metadata, unit, cluster),
          );
          if (result.adopted) this.logger.log(`adopted ${ips} for running pod ${key} (uid ${uid}) on node ${node} of cluster ${cluster}`);
        } catch (err) {
          if (!(err instanceof DomainError) || isConflict(err)) throw err;
          this.logger.warn(
            `running pod ${key} of cluster ${cluster} reports ${ips}, not adopted: ${err.code}: ${err.message} (see ipledger check)`,
          );
        }
      }),
    );
  }
}

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(keyOf(item));
    if (group) group.push(item);
    else groups.set(keyOf(item), [item]);
  }
  return groups;
}

/** A running pod not on the host's network that reports addresses: the only kind a candidate can be. */
function mayAdopt(pod: KubeObject): boolean {
  const podIPs = pod.status?.podIPs;
  return pod.status?.phase === 'Running' && pod.spec?.hostNetwork !== true && Array.isArray(podIPs) && podIPs.length > 0;
}
