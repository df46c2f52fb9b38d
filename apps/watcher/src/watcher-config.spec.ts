import { loadWatcherConfig } from './watcher-config';

describe('IPAM_CLUSTER', () => {
  it('names the default cluster unless set', () => {
    expect(loadWatcherConfig({}).cluster).toBe('default');
    expect(loadWatcherConfig({ IPAM_CLUSTER: 'east-1' }).cluster).toBe('east-1');
  });

  it('refuses a name that is no DNS-1123 label, at start', () => {
    for (const name of ['East', 'a.b', '-east', 'x'.repeat(64), ''])
      expect(() => loadWatcherConfig({ IPAM_CLUSTER: name })).toThrow(/cluster name/);
  });
});
