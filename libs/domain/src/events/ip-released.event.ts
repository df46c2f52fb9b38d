/** Who let the address go: the holder's details ride along, so the log alone answers "who held it when". */
export interface IpReleased {
  type: 'IpReleased';
  data: { pool: string; ip: string; handle: string; node: string; namespace: string; pod: string };
}
