import type { Labels } from '../labels';

/** PUT semantics: the node's labels are replaced as a whole. */
export interface NodeLabelsSet {
  type: 'NodeLabelsSet';
  /** `cluster` absent: the default cluster */
  data: { name: string; cluster?: string; labels: Labels };
}
