/**
 * The outcome of reconciling a StatefulSet to its latest desired state: `continuous` with the
 * range its ordinals map onto, or `dynamic` (pods get addresses on the fly) with the reason.
 */
export interface StatefulSetReconciled {
  type: 'StatefulSetReconciled';
  data: {
    namespace: string;
    name: string;
    /** absent for the default cluster (inCluster) */
    cluster?: string;
    replicas: number;
    ordinalsStart: number;
    pool: string | null;
    mode: 'continuous' | 'dynamic';
    range: { start: string; end: string } | null;
    reason: string | null;
  };
}
