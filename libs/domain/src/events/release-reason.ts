/** Why an address was released when the holder itself did not ask (CNI DEL records no reason). */
export type ReleaseReason =
  | { cause: 'pod-deleted'; podUid: string }
  | {
      cause: 'pod-missing';
      /** the pod syncs that did not list the pod, oldest first: the evidence for the leak */
      syncs: Array<{ syncId: string; listedAt: string }>;
      allocatedAt: string;
      graceSeconds: number;
    }
  /** held for its node (the pod was deleted while its sandbox might run), then freed because the node object was deleted */
  | { cause: 'node-deleted'; podUid: string; node: string; heldSince: string }
  /** held for its node, then freed because the node was not Ready for graceSeconds (IPAM_UNREACHABLE_NODE_GRACE_SECONDS) */
  | { cause: 'node-unreachable'; podUid: string; node: string; heldSince: string; lastReadyAt: string; graceSeconds: number };

/** Releases on someone else's behalf only touch the pod they name: a new pod of the same name keeps its address. */
export interface ReleaseCondition {
  podUid?: string;
  reason?: ReleaseReason;
}
