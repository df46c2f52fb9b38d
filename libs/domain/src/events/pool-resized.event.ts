/**
 * The pool's CIDR grew to a network that contains it, or shrank to one inside it. An event of its
 * own, not a PoolUpdated field: it changes the address space (capacity, network and broadcast
 * addresses, what is free), so every reader that folds or projects it must know, and the record
 * keeps both networks, which audit and history show as they were.
 */
export interface PoolResized {
  type: 'PoolResized';
  data: { name: string; previousCidr: string; cidr: string };
}
