-- Claims (issue 36): identities that own addresses across the pods carrying them. Additive: the
-- previous release neither reads nor writes these tables. A claim's addresses are rows of
-- allocations under its holding handle (`@<name>`); these say who the claim is and who holds it.
CREATE TABLE claims (
  name        text PRIMARY KEY,
  cluster     text NOT NULL,
  network     text,
  persistent  boolean NOT NULL,
  version     integer NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);

-- A live reference, found by its handle at each DELETE of a handle.
CREATE TABLE claim_references (
  handle     text PRIMARY KEY,
  claim      text NOT NULL,
  cluster    text NOT NULL,
  node       text NOT NULL,
  namespace  text NOT NULL,
  pod        text NOT NULL,
  since      timestamptz NOT NULL
);
CREATE INDEX claim_references_claim ON claim_references (claim, since);
-- a deleted pod's references (its launcher's, its IPAMClaim attachments') are found by the pod
CREATE INDEX claim_references_pod ON claim_references (namespace, pod);

-- An address's history finds the references taken and dropped on it by the addresses they record.
CREATE INDEX events_claim_history ON events USING gin ((data -> 'addresses') jsonb_path_ops)
  WHERE type IN ('ClaimReferenceAdded', 'ClaimReferenceDropped');
