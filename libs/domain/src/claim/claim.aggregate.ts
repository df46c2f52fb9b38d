import type { AggregateType } from '../aggregate-type';
import { handleKey } from '../cluster/cluster-scope';
import { DomainError, InvalidInputError } from '../errors/domain-error';
import { unknownEvent } from '../events/unknown-event';
import type {
  ClaimAddress,
  ClaimCreated,
  ClaimDeleted,
  ClaimEvent,
  ClaimPersisted,
  ClaimReferenceAdded,
  ClaimReferenceDropped,
} from '../events';

/** At most two pods carry a claim at once: the source and the target of a live migration. */
export const MAX_CLAIM_REFERENCES = 2;

/** Who takes a claim's addresses: a handle of a pod on a node, in a cluster (a handle names an attachment within its cluster). */
export interface ClaimReference {
  handle: string;
  cluster: string;
  node: string;
  namespace: string;
  pod: string;
}

export interface ClaimReferenceInput extends ClaimReference {
  /** the network the request is for; absent: the default network of its CNI */
  network?: string;
}

/** A reference's key among the claim's: a migration between clusters may carry the same handle (an external caller's workload id) in both. */
export const referenceKey = (reference: { cluster: string; handle: string }): string => handleKey(reference.cluster, reference.handle);

export interface ClaimState {
  exists: boolean;
  persistent: boolean;
  network: string | null;
  cluster: string;
  /** live references by referenceKey, in the order taken */
  references: ReadonlyMap<string, ClaimReference>;
}

const NONE: ClaimState = { exists: false, persistent: false, network: null, cluster: '', references: new Map() };

function evolve(state: ClaimState, event: { type: string; data: Record<string, unknown> }): ClaimState {
  const e = event as ClaimEvent;
  switch (e.type) {
    case 'ClaimCreated':
      return { exists: true, persistent: e.data.persistent, network: e.data.network, cluster: e.data.cluster, references: new Map() };
    case 'ClaimPersisted':
      return { ...state, persistent: true };
    case 'ClaimReferenceAdded': {
      const { handle, cluster, node, namespace, pod, network } = e.data;
      return {
        ...state,
        network: network ?? state.network,
        references: new Map(state.references).set(referenceKey(e.data), { handle, cluster, node, namespace, pod }),
      };
    }
    case 'ClaimReferenceDropped': {
      const references = new Map(state.references);
      references.delete(referenceKey(e.data));
      return { ...state, references };
    }
    case 'ClaimDeleted':
      // a later claim of the name starts afresh
      return NONE;
    default:
      return unknownEvent(e);
  }
}

/** Stream id `claim-<name>`: one stream a claim, so its references are decided one at a time. */
export const ClaimAggregate: AggregateType<ClaimState> = {
  streamPrefix: 'claim',
  initialState: () => NONE,
  evolve,
};

/** A claim belongs to one network: a request for another would carry the wrong network's address. */
function assertNetwork(state: ClaimState, name: string, network: string | undefined): void {
  if (state.network !== null && network !== undefined && network !== state.network)
    throw new InvalidInputError('INVALID_ARGUMENT', `claim "${name}" belongs to network "${state.network}", not "${network}"`);
}

/**
 * PUT of a claim: a new one is persistent; one made by an allocation becomes persistent; one
 * persistent already appends nothing. Its network is fixed once known.
 */
export function decidePutClaim(
  state: ClaimState,
  name: string,
  spec: { network?: string; cluster: string },
): ClaimCreated | ClaimPersisted | null {
  if (!state.exists)
    return { type: 'ClaimCreated', data: { name, persistent: true, network: spec.network ?? null, cluster: spec.cluster } };
  assertNetwork(state, name, spec.network);
  return state.persistent ? null : { type: 'ClaimPersisted', data: { name } };
}

/**
 * A handle takes the claim's addresses (`addresses`, as held under its holding). A claim not made
 * yet is made by it, transient. The handle already a reference appends nothing (a retried ADD); a
 * third live reference is refused.
 */
export function decideAddReference(
  state: ClaimState,
  name: string,
  reference: ClaimReferenceInput,
  addresses: ClaimAddress[],
): Array<ClaimCreated | ClaimReferenceAdded> {
  if (state.references.has(referenceKey(reference))) return [];
  assertReferenceFree(state, name, reference);
  const { handle, cluster, node, namespace, pod, network } = reference;
  const added: ClaimReferenceAdded = {
    type: 'ClaimReferenceAdded',
    data: {
      name,
      handle,
      cluster,
      node,
      namespace,
      pod,
      addresses,
      ...(state.exists && state.network === null && network !== undefined ? { network } : {}),
    },
  };
  if (state.exists) return [added];
  return [{ type: 'ClaimCreated', data: { name, persistent: false, network: network ?? null, cluster } }, added];
}

/** Refuses a reference the claim cannot take: a third live one, or one of another network. Checked before any address is allocated. */
export function assertReferenceFree(
  state: ClaimState,
  name: string,
  reference: Pick<ClaimReferenceInput, 'handle' | 'cluster' | 'network'>,
): void {
  if (state.references.has(referenceKey(reference))) return;
  assertNetwork(state, name, reference.network);
  if (state.references.size >= MAX_CLAIM_REFERENCES)
    throw new DomainError(
      'CLAIM_REFERENCES_FULL',
      `claim "${name}" already has ${MAX_CLAIM_REFERENCES} live references (${[...state.references.values()].map(describe).join(', ')}): release one first`,
    );
}

const describe = (reference: ClaimReference) => `${reference.handle} in cluster ${reference.cluster}`;

/**
 * A handle lets go of the claim: nothing when it is not one of its references. A transient claim
 * ends with its last reference (ClaimDeleted: the caller releases its addresses in the same append).
 */
export function decideDropReference(
  state: ClaimState,
  name: string,
  handle: { cluster: string; handle: string },
  addresses: ClaimAddress[],
): Array<ClaimReferenceDropped | ClaimDeleted> {
  const reference = state.references.get(referenceKey(handle));
  if (!reference) return [];
  const dropped: ClaimReferenceDropped = { type: 'ClaimReferenceDropped', data: { name, ...reference, addresses } };
  const last = state.references.size === 1 && !state.persistent;
  return last ? [dropped, { type: 'ClaimDeleted', data: { name } }] : [dropped];
}

/** DELETE of a claim: its live references are dropped with it (each recorded), and its addresses released by the caller. */
export function decideDeleteClaim(state: ClaimState, name: string, addresses: ClaimAddress[]): Array<ClaimReferenceDropped | ClaimDeleted> {
  if (!state.exists) throw new DomainError('CLAIM_NOT_FOUND', `claim "${name}" does not exist`);
  const dropped = [...state.references.values()].map(
    (reference): ClaimReferenceDropped => ({ type: 'ClaimReferenceDropped', data: { name, ...reference, addresses } }),
  );
  return [...dropped, { type: 'ClaimDeleted', data: { name } }];
}
