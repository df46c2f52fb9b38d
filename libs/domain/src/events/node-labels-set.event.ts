import type { Labels } from '../labels';

/** PUT semantics: the node's labels are replaced as a whole. */
export interface NodeLabelsSet {
  type: 'NodeLabelsSet';
  data: { name: string; labels: Labels };
}
