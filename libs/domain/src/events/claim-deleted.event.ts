/** The claim ended (its DELETE, or a transient claim's last reference dropped): its addresses are released with it. */
export interface ClaimDeleted {
  type: 'ClaimDeleted';
  data: { name: string };
}
