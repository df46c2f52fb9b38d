export interface IpAllocated {
  type: 'IpAllocated';
  data: {
    pool: string;
    ip: string;
    family: 4 | 6;
    handle: string;
    node: string;
    namespace: string;
    pod: string;
    podUid: string | null;
  };
}
