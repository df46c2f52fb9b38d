import { ListedClusters } from './listed-clusters';

describe('ListedClusters', () => {
  it('takes a cluster seen listed as listed for a few seconds, then asks again; forgets a deletion at once', () => {
    let now = 0;
    const listed = new ListedClusters();
    listed.now = () => now;
    expect(listed.has('east')).toBe(false);
    listed.add('east');
    now = 4_999;
    expect(listed.has('east')).toBe(true);
    now = 5_000;
    expect(listed.has('east')).toBe(false);
    listed.add('east');
    listed.forget('east');
    expect(listed.has('east')).toBe(false);
  });

  it('keeps a bounded number of names', () => {
    const listed = new ListedClusters();
    listed.now = () => 0;
    for (let i = 0; i < 10_001; i++) listed.add(`c${i}`);
    expect(listed.has('c0')).toBe(false);
    expect(listed.has('c10000')).toBe(true);
  });
});
