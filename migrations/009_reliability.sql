-- Allocation ownership: only pods' addresses may be released by pod deletes and leak collection.
-- Rows projected before owners were recorded get allocationOwner()'s default: pod when a pod uid
-- was given, else external (never collected: a leak costs one address, a wrong release two holders).
ALTER TABLE allocations ADD COLUMN owner text;
UPDATE allocations SET owner = CASE WHEN pod_uid IS NULL THEN 'external' ELSE 'pod' END;
ALTER TABLE allocations ALTER COLUMN owner SET NOT NULL;
ALTER TABLE allocations ADD CONSTRAINT allocations_owner_check CHECK (owner IN ('pod', 'external'));

-- Parking: a message that kept failing for a reason other than a refusal is set aside with its
-- stream sequence; `unpark_requested` (npm run cli -- unpark) asks the API to apply it again.
ALTER TABLE kubernetes_objects ADD COLUMN parked_sequence bigint;
ALTER TABLE kubernetes_objects ADD COLUMN unpark_requested boolean NOT NULL DEFAULT false;
CREATE INDEX kubernetes_objects_unpark ON kubernetes_objects (kind, key) WHERE unpark_requested;
