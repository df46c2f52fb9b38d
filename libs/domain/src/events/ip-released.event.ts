export interface IpReleased {
  type: 'IpReleased';
  data: { pool: string; ip: string; handle: string };
}
