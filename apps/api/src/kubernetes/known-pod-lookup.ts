import { Inject, Injectable } from '@nestjs/common';
import type { IpSetRef } from '@ipledger/domain';
import type { Pool } from 'pg';
import type { PodLookup, PodRef, StoredPod } from '../allocations/pod-lookup';
import { PG_POOL } from '../infrastructure/tokens';
import { awaitPodAnnotations, liveWorkloadUid } from './known-pods';

/** The allocations' PodLookup, answered from what the Kubernetes consumer applied (kubernetes_objects). */
@Injectable()
export class KnownPodLookup implements PodLookup {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  awaitPod(ref: PodRef, waitMs: number, bound: boolean): Promise<StoredPod> {
    return awaitPodAnnotations(this.db, ref, waitMs, bound);
  }

  liveWorkloadUid(ref: IpSetRef): Promise<string | null> {
    return liveWorkloadUid(this.db, ref);
  }
}
