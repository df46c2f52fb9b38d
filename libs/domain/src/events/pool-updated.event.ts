import type { Labels } from '../labels';

/** Only the fields that changed are present. */
export interface PoolUpdated {
  type: 'PoolUpdated';
  data: {
    name: string;
    labels?: Labels;
    nodeSelector?: string | null;
    clusterSelector?: string | null;
    disabled?: boolean;
    reuseDelaySeconds?: number;
    allowSpecialRanges?: boolean;
  };
}
