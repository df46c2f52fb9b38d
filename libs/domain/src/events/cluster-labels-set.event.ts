import type { Labels } from '../labels';

/** PUT semantics: the cluster's labels are replaced as a whole; the first one creates the cluster. */
export interface ClusterLabelsSet {
  type: 'ClusterLabelsSet';
  data: { name: string; labels: Labels };
}
