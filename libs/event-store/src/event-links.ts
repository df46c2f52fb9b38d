/** A stored link of the audit chain: the `seq`-th event of the feed, at `position`, chains to `hash`. */
export interface EventLink {
  seq: number;
  position: string;
  transactionId: string;
  /** lowercase hex */
  hash: string;
}

/** The chain's head: how many events it covers, the hash of the last link, and when that link was sealed. */
export interface ChainHead {
  count: number;
  hash: string;
  at: Date;
}

/** The last link of the chain and its place in the feed, where sealing goes on from. */
export type StoredHead = ChainHead & Pick<EventLink, 'position' | 'transactionId'>;
