import type { ReleaseReason } from './release-reason';

/** Who let the address go: the holder's details ride along, so the log alone answers "who held it when". */
export interface IpReleased {
  type: 'IpReleased';
  /** node, namespace and pod are null in events recorded before schema version 2 (see upcast.ts) */
  data: {
    pool: string;
    ip: string;
    handle: string;
    /** the cluster of the handle; absent: the default cluster */
    cluster?: string;
    node: string | null;
    namespace: string | null;
    pod: string | null;
    /** present when the watcher released it (the pod was deleted, or leak collection found it gone) */
    reason?: ReleaseReason;
    /** the pool's isolated network (absent: the shared space), so an address's history narrows to one network */
    poolNetwork?: string;
  };
}
