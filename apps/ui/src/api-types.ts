/** The shapes of the public REST API (API.md) that the UI reads. Counts are decimal strings. */

export interface StatefulSetRange {
  namespace: string;
  name: string;
  start: string;
  end: string;
}

export interface Pool {
  name: string;
  cidr: string;
  family: 4 | 6;
  /** never handed out, and in every allocation from the pool; null when the pool names none */
  gateway: string | null;
  labels: Record<string, string>;
  nodeSelector: string | null;
  reserved: string[];
  disabled: boolean;
  /** the isolated network whose address space it is in; null (absent from an older API): the shared space */
  network?: string | null;
  /** the clusters that may allocate from it (a label selector over cluster labels); null or absent: every cluster */
  clusterSelector?: string | null;
  capacity: string;
  allocated: string;
  reservedCount: string;
  rangeReservedCount: string;
  free: string;
  statefulSetRanges: StatefulSetRange[];
  /** present when the pool is handed to nodes in blocks of this prefix length */
  blockSize?: number;
  blockAffinity?: 'strict' | 'borrow';
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface Allocation {
  handle: string;
  /** the cluster of the handle and node */
  cluster: string;
  ip: string;
  pool: string;
  node: string;
  namespace: string;
  pod: string;
  family: 4 | 6;
  statefulSet?: { namespace: string; name: string; ordinal: number };
  /** the CNI network it was asked for through */
  network?: string;
  allocatedAt: string;
  /** taken from another node's block (blockAffinity borrow) */
  borrowed?: boolean;
  /** its pod is deleted but the sandbox may still use the address: not free yet */
  heldForNode?: { node: string; cause: 'node-not-ready' | 'containers-running'; since: string };
}

/** A block of a pool claimed by a node: what a route controller announces towards that node. */
export interface Block {
  cidr: string;
  pool: string;
  node: string;
  used: number;
  borrowed: number;
}

export interface List<T> {
  items: T[];
  continue: string | null;
}

export interface RecordedEvent {
  position: number;
  version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recordedAt: string;
}

export interface IpHistoryItem {
  type: string;
  handle: string | null;
  pool: string;
  /** the pool's isolated network; null: the shared space */
  network: string | null;
  node: string | null;
  namespace: string | null;
  pod: string | null;
  statefulSet?: string | null;
  ipSet?: { kind: string; name: string } | null;
  /** the handle's cluster (a claim reference's: the reference's) */
  cluster: string;
  /** a claim's reference taken or dropped on the address: the claim */
  claim?: string;
  at: string;
  actor?: string | null;
}

export interface Cluster {
  name: string;
  labels: Record<string, string>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A pod's attachment that carries a claim's addresses: the source or target of a migration. */
export interface ClaimReference {
  cluster: string;
  handle: string;
  node: string;
  namespace: string;
  pod: string;
  since: string;
}

/** A stable identity (a VM) owning addresses across the pods that carry it. */
export interface Claim {
  name: string;
  /** the cluster it was made in: its addresses are held there, under the handle `@<name>` */
  cluster: string;
  /** the CNI network its addresses were asked through; null until its first allocation */
  network: string | null;
  persistent: boolean;
  items: Allocation[];
  references: ClaimReference[];
  createdAt: string;
}

export interface Node {
  name: string;
  labels: Record<string, string>;
  version: number;
  updatedAt: string;
}

export interface NodePools {
  items: Pool[];
  excluded?: Array<{ pool: string; reason: string }>;
  /** with explain=true: which rule chose the candidates */
  chosenBy?: string;
}
