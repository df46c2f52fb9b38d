import { changeMessageId } from './message-id';
import { changeSubject, DEFAULT_STREAM_NAMES, parseSubject, syncSubject } from './subjects';

describe("subjects: a cluster's messages in the one stream", () => {
  const names = DEFAULT_STREAM_NAMES;

  it("keeps the default cluster's subjects of before clusters, and names another cluster", () => {
    expect(changeSubject(names, 'pod')).toBe('ipledger.kubernetes.pod');
    expect(syncSubject(names, 'pod', 'default')).toBe('ipledger.kubernetes.pod.sync');
    expect(changeSubject(names, 'node', 'east')).toBe('ipledger.kubernetes.east.node');
    expect(syncSubject(names, 'node', 'east')).toBe('ipledger.kubernetes.east.node.sync');
  });

  it("reads each back, a message of before clusters as the default cluster's, a cluster named like a kind included", () => {
    expect(parseSubject(names, 'ipledger.kubernetes.pod')).toEqual({ cluster: 'default', kind: 'pod', sync: false });
    expect(parseSubject(names, 'ipledger.kubernetes.pod.sync')).toEqual({ cluster: 'default', kind: 'pod', sync: true });
    expect(parseSubject(names, 'ipledger.kubernetes.east.pod.sync')).toEqual({ cluster: 'east', kind: 'pod', sync: true });
    expect(parseSubject(names, 'ipledger.kubernetes.pod.node')).toEqual({ cluster: 'pod', kind: 'node', sync: false });
  });

  it('refuses what no watcher publishes', () => {
    for (const subject of [
      'ipledger.kubernetes.east',
      'ipledger.kubernetes.east.sync',
      'ipledger.kubernetes.East.pod',
      'ipledger.kubernetes.east.pod.extra',
      'ipledger.kubernetes.a.b.pod',
      'other.pod',
    ])
      expect(parseSubject(names, subject)).toBeNull();
  });

  it("gives another cluster's object version its own message id, the default cluster's the id of before", () => {
    const change = {
      kind: 'node' as const,
      type: 'MODIFIED' as const,
      object: { metadata: { name: 'w', uid: 'u', resourceVersion: '7' } },
    };
    expect(changeMessageId(change)).toBe('u:7');
    expect(changeMessageId(change, 'east')).toBe('east:u:7');
  });
});
