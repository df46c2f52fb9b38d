import type { Labels } from '../labels';

export interface PoolCreated {
  type: 'PoolCreated';
  data: {
    name: string;
    /** canonical CIDR text */
    cidr: string;
    family: 4 | 6;
    labels: Labels;
    /** canonical Kubernetes label-selector text, or null for "every node" */
    nodeSelector: string | null;
    /** canonical addresses and `first-last` ranges never handed out */
    reserved: string[];
    disabled: boolean;
  };
}
