import { parseCidr } from '@ipledger/ip';
import type { Allocation, Block, Pool } from './api-types';
import { ipSetOf } from './range-owner';
import { mapCells, poolLayout, type AddressCell, type BlockCell } from './address-map-model';

const pool = (over: Partial<Pool>): Pool => ({
  name: 'p',
  cidr: '10.0.0.0/24',
  family: 4,
  gateway: null,
  labels: {},
  nodeSelector: null,
  reserved: [],
  disabled: false,
  capacity: '0',
  allocated: '0',
  reservedCount: '0',
  rangeReservedCount: '0',
  free: '0',
  statefulSetRanges: [],
  version: 1,
  createdAt: '',
  updatedAt: '',
  ...over,
});

const held = (ip: string, pod = `pod-${ip}`): Allocation => ({
  handle: `h-${ip}`,
  cluster: 'default',
  ip,
  pool: 'p',
  node: 'n',
  namespace: 'default',
  pod,
  family: ip.includes(':') ? 6 : 4,
  allocatedAt: '',
});

const claimed = (cidr: string, node: string): Block => ({ cidr, pool: 'p', node, used: 0, borrowed: 0 });

const tally = (cells: BlockCell[], state: keyof BlockCell['counts']) => cells.reduce((sum, c) => sum + c.counts[state], 0n);

describe('address map model', () => {
  it('draws one cell an address for a /24, each in the state that wins', () => {
    const layout = poolLayout(
      pool({
        gateway: '10.0.0.1',
        reserved: ['10.0.0.1-10.0.0.3'],
        statefulSetRanges: [{ namespace: 'apps', name: 'web', start: '10.0.0.10', end: '10.0.0.12' }],
      }),
      [held('10.0.0.11', 'web-1'), held('10.0.0.20')],
    );
    const cells = mapCells(layout) as AddressCell[];
    expect(cells).toHaveLength(256);
    const at = (i: number) => cells[i];
    expect([0, 1, 2, 10, 11, 20, 21, 255].map((i) => at(i).state)).toEqual([
      'unusable',
      'gateway',
      'reserved',
      'range',
      'allocated',
      'allocated',
      'free',
      'unusable',
    ]);
    expect(at(11)).toMatchObject({ holder: { pod: 'web-1' }, range: { name: 'web' } });
  });

  it("draws an ip-set's free addresses in a state of their own, apart from a StatefulSet's range", () => {
    const layout = poolLayout(
      pool({
        statefulSetRanges: [
          { namespace: 'apps', name: 'db', start: '10.0.0.10', end: '10.0.0.11' },
          { namespace: 'apps', name: 'Deployment:web', start: '10.0.0.20', end: '10.0.0.22' },
        ],
      }),
      [held('10.0.0.21', 'web-abc-1')],
    );
    const cells = mapCells(layout) as AddressCell[];
    expect([10, 20, 21, 22, 23].map((i) => cells[i].state)).toEqual(['range', 'ipset', 'allocated', 'ipset', 'free']);
    expect(ipSetOf(cells[20].range!)).toEqual({ kind: 'Deployment', name: 'web' });
    expect(ipSetOf(cells[10].range!)).toBeNull();
    const blocks = mapCells(poolLayout(pool({ cidr: '10.0.0.0/16', statefulSetRanges: [cells[20].range!] }), [])) as BlockCell[];
    expect(tally(blocks, 'ipset')).toBe(3n);
    expect(tally(blocks, 'range')).toBe(0n);
  });

  it('aggregates a /16 into 256 /24 blocks whose counts add up to the pool', () => {
    const layout = poolLayout(
      pool({
        cidr: '10.1.0.0/16',
        gateway: '10.1.0.1',
        reserved: ['10.1.0.1-10.1.0.9', '10.1.5.0-10.1.6.255'],
        statefulSetRanges: [{ namespace: 'apps', name: 'db', start: '10.1.7.250', end: '10.1.8.5' }],
      }),
      [held('10.1.7.251'), held('10.1.8.0'), held('10.1.200.7')],
    );
    const blocks = mapCells(layout) as BlockCell[];
    expect(blocks).toHaveLength(256);
    expect(blocks[7].cidr).toBe('10.1.7.0/24');
    expect(blocks[0].counts).toMatchObject({ gateway: 1n, reserved: 8n, unusable: 1n, free: 256n - 10n });
    expect(blocks[7].counts).toMatchObject({ allocated: 1n, range: 5n });
    expect(blocks[8].counts).toMatchObject({ allocated: 1n, range: 5n });
    expect(tally(blocks, 'allocated')).toBe(3n);
    expect(tally(blocks, 'reserved')).toBe(8n + 512n);
    expect(tally(blocks, 'unusable')).toBe(2n);
    const sum = ['allocated', 'gateway', 'reserved', 'range', 'free', 'unusable'].reduce(
      (s, k) => s + tally(blocks, k as keyof BlockCell['counts']),
      0n,
    );
    expect(sum).toBe(65536n);
  });

  it('aggregates an IPv6 /64 and zooms into a block down to single addresses', () => {
    const layout = poolLayout(pool({ cidr: 'fd00::/64', family: 6 }), [held('fd00::5')]);
    const blocks = mapCells(layout) as BlockCell[];
    expect(blocks[0]).toMatchObject({ cidr: 'fd00::/72', counts: { allocated: 1n, free: 2n ** 56n - 1n, unusable: 0n } });
    const cells = mapCells(layout, parseCidr('fd00::/116')) as AddressCell[];
    expect(cells).toHaveLength(4096);
    expect(cells[5]).toMatchObject({ ip: 'fd00::5', state: 'allocated', holder: { pod: 'pod-fd00::5' } });
  });

  it("puts each address in its node's block and names the nodes' blocks in an aggregated cell", () => {
    // given out of order, as a page boundary could: the layout sorts them
    const blocks = [
      claimed('10.2.7.192/26', 'n3'),
      claimed('10.2.0.0/26', 'n1'),
      claimed('10.2.7.0/26', 'n2'),
      claimed('10.2.7.64/26', 'n2'),
    ];
    const layout = poolLayout(pool({ cidr: '10.2.0.0/16' }), [], blocks);
    const aggregated = mapCells(layout) as BlockCell[];
    expect(aggregated.map((c) => c.nodeBlocks.map((b) => b.cidr)).filter((l) => l.length)).toEqual([
      ['10.2.0.0/26'],
      ['10.2.7.0/26', '10.2.7.64/26', '10.2.7.192/26'],
    ]);
    expect(aggregated[7].cidr).toBe('10.2.7.0/24');
    const cells = mapCells(layout, parseCidr('10.2.7.0/24')) as AddressCell[];
    const nodeAt = (i: number) => cells[i].nodeBlock?.node ?? null;
    expect([0, 63, 64, 127, 128, 191, 192, 255].map(nodeAt)).toEqual(['n2', 'n2', 'n2', 'n2', null, null, 'n3', 'n3']);
    expect(cells[70].nodeBlock?.cidr).toBe('10.2.7.64/26');
  });
});
