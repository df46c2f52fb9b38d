/** An address a claim holds, as its reference events record it: the audit history finds them by `ip`. */
export type ClaimAddress = {
  ip: string;
  pool: string;
};

/** A pod's attachment (its handle) that carries a claim's addresses, with where it runs. */
export type ClaimReferenceData = {
  name: string;
  handle: string;
  cluster: string;
  node: string;
  namespace: string;
  pod: string;
  /** the claim's addresses when the reference was taken or dropped */
  addresses: ClaimAddress[];
};
