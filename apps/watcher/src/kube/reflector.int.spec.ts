import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { objectKey, type KubeKind, type LiveKey, type ObjectChange } from '@ipledger/messaging';
import { startFakeKubeApi, type FakeKubeApi, type FakeKubeApiOptions } from '../../../../test/support/fake-kube-api';
import { HttpKubeClient, loadKubeConnection, type KubeClient } from '@ipledger/kube';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector';
import { eventually } from '../../../../test/support/eventually';

/** Remembers everything; `failOn` makes the sink throw once, for the first change it matches. */
class RecordingSink implements ReflectorSink {
  readonly changes: ObjectChange[] = [];
  readonly syncs: Array<{ kind: KubeKind; items: LiveKey[]; resourceVersion: string; listedAt: Date }> = [];
  failOn?: (change: ObjectChange) => boolean;

  change(change: ObjectChange): Promise<void> {
    if (this.failOn?.(change)) {
      this.failOn = undefined;
      return Promise.reject(new Error('sink unavailable'));
    }
    this.changes.push(change);
    return Promise.resolve();
  }

  synced(kind: KubeKind, items: LiveKey[], resourceVersion: string, listedAt: Date): Promise<void> {
    this.syncs.push({ kind, items, resourceVersion, listedAt });
    return Promise.resolve();
  }

  /** `TYPE key@resourceVersion` of every change from `from` on */
  summary(from = 0): string[] {
    return this.changes.slice(from).map(({ type, object }) => `${type} ${objectKey(object)}@${object.metadata.resourceVersion}`);
  }
}

const until = (condition: () => boolean, what: string) => eventually(condition, Boolean, 10_000, what);

describe('Reflector', () => {
  let dir: string;
  let api: FakeKubeApi;
  let client: HttpKubeClient;
  let sink: RecordingSink;
  let logs: string[];
  let reflectors: Reflector[];

  async function setUp(options: FakeKubeApiOptions = {}): Promise<void> {
    api = await startFakeKubeApi({ token: 't0ken', ...options });
    client = new HttpKubeClient(loadKubeConnection({ env: { KUBECONFIG: api.writeKubeconfig(dir) } }));
  }

  function reflect(kind: KubeKind, options: Partial<ReflectorOptions> = {}): Reflector {
    const logger = { log: (line: string) => logs.push(line), warn: (line: string) => logs.push(line) };
    const reflector = new Reflector({ kind, client, sink, logger, backoff: { baseMs: 5, maxMs: 40 }, ...options });
    reflectors.push(reflector);
    reflector.start();
    return reflector;
  }

  const watchRequests = (kind: KubeKind) => api.requests.filter((request) => request.kind === kind && request.verb === 'watch');
  const watching = (kind: KubeKind, count: number) => () => watchRequests(kind).length >= count && api.activeWatches(kind) === 1;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reflector-'));
    sink = new RecordingSink();
    logs = [];
    reflectors = [];
  });
  afterEach(async () => {
    for (const reflector of reflectors) await reflector.stop();
    client?.close();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every object, then reports the sync with every live key at the list resourceVersion', async () => {
    await setUp();
    const pods = ['b', 'a'].map((name) =>
      api.upsert('pod', { metadata: { name, namespace: 'web', labels: { app: 'web' } }, spec: { nodeName: 'n1' } }),
    );
    api.upsert('node', { metadata: { name: 'n1' } });
    const reflector = reflect('pod');
    await reflector.whenSynced();
    expect(reflector.hasSynced()).toBe(true);
    expect(sink.summary()).toEqual(['ADDED web/a@2', 'ADDED web/b@1']);
    expect(sink.syncs).toEqual([
      {
        kind: 'pod',
        items: [
          { key: 'web/a', uid: pods[1].metadata.uid },
          { key: 'web/b', uid: pods[0].metadata.uid },
        ],
        resourceVersion: '3',
        listedAt: expect.any(Date),
      },
    ]);
    expect(reflector.keys()).toEqual(['web/a', 'web/b']);
    // the sink had the whole trimmed pod; the store keeps what a DELETED needs of it, no more
    expect(sink.changes[0].object.metadata.labels).toEqual({ app: 'web' });
    expect(reflector.object('web/a')).toEqual({
      metadata: { name: 'a', namespace: 'web', uid: pods[1].metadata.uid, resourceVersion: '2' },
      spec: { nodeName: 'n1' },
    });
    expect(logs).toContain('pod: listed 2 objects at resourceVersion 3');
    await until(watching('pod', 1), 'the watch');
    expect(watchRequests('pod')[0].query).toMatchObject({ resourceVersion: '3', allowWatchBookmarks: 'true' });
  });

  it('announces the live keys again from its store between watches, without a relist', async () => {
    await setUp();
    const a = api.upsert('pod', { metadata: { name: 'a', namespace: 'web' } });
    const reflector = reflect('pod', { resyncSeconds: 0 });
    await reflector.whenSynced();
    await until(watching('pod', 1), 'the watch');
    const b = api.upsert('pod', { metadata: { name: 'b', namespace: 'web' } });
    await until(() => reflector.keys().length === 2, 'the watch event');
    api.endWatches();
    await until(() => sink.syncs.length === 2, 'the resync');
    expect(sink.syncs[1]).toEqual({
      kind: 'pod',
      items: [
        { key: 'web/a', uid: a.metadata.uid },
        { key: 'web/b', uid: b.metadata.uid },
      ],
      resourceVersion: b.metadata.resourceVersion,
      listedAt: expect.any(Date),
    });
    expect(reflector.stats()).toMatchObject({ lists: 1, resyncs: 1 });
  });

  it('lists again at once when the sink asks, ending the open watch', async () => {
    await setUp();
    api.upsert('node', { metadata: { name: 'n1' } });
    const reflector = reflect('node');
    await reflector.whenSynced();
    await until(watching('node', 1), 'the watch');
    reflector.relist();
    await until(() => sink.syncs.length === 2, 'the second list');
    expect(sink.summary()).toEqual(['ADDED n1@1', 'MODIFIED n1@1']);
    expect(reflector.stats()).toMatchObject({ lists: 2, errors: 0 });
    await until(watching('node', 2), 'the next watch');
  });

  it('pages through a large list with limit=500 and continue', async () => {
    await setUp();
    for (let i = 0; i < 1201; i++) api.upsert('ippool', { metadata: { name: `pool-${String(i).padStart(4, '0')}` } });
    const reflector = reflect('ippool');
    await reflector.whenSynced();
    const lists = api.requests.filter((request) => request.verb === 'list');
    expect(lists.map((request) => [request.query.limit, Boolean(request.query.continue)])).toEqual([
      ['500', false],
      ['500', true],
      ['500', true],
    ]);
    expect(sink.changes).toHaveLength(1201);
    expect(sink.changes.every((change) => change.type === 'ADDED' && change.kind === 'ippool')).toBe(true);
    expect(sink.syncs[0].items).toHaveLength(1201);
    expect(sink.syncs[0].resourceVersion).toBe('1201');
  });

  it('asks for the next page while handing on the current one, keeps the order, and asks for none after a stop', async () => {
    await setUp();
    for (let i = 0; i < 1500; i++) api.upsert('pod', { metadata: { name: `p${String(i).padStart(4, '0')}` } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let blocked = false;
    // the sink holds the first object until the second page has been asked for
    const slowSink: ReflectorSink = {
      change: async (change) => {
        if (!blocked) {
          blocked = true;
          await held;
        }
        return sink.change(change);
      },
      synced: (kind, items, resourceVersion, listedAt) => sink.synced(kind, items, resourceVersion, listedAt),
    };
    const reflector = reflect('pod', { sink: slowSink });
    await until(() => api.requests.filter((request) => request.verb === 'list').length === 2, 'the second page asked for');
    expect(sink.changes).toHaveLength(0);
    release();
    await reflector.whenSynced();
    expect(sink.summary()).toEqual(api.objects('pod').map((pod) => `ADDED ${objectKey(pod)}@${pod.metadata.resourceVersion}`));

    // stopped while the first page is handed on: the page asked for ahead is the last request
    const stopping = reflect('pod', {
      sink: { change: () => new Promise((resolve) => setTimeout(resolve, 1)), synced: () => Promise.resolve() },
    });
    const lists = () => api.requests.filter((request) => request.verb === 'list').length;
    const before = lists();
    await until(() => lists() === before + 2, 'the first two pages of the second reflector');
    await stopping.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lists()).toBe(before + 2);
    expect(stopping.hasSynced()).toBe(false);
  });

  it('starts the list over when its continue token expires mid-way', async () => {
    await setUp();
    for (let i = 0; i < 1100; i++) api.upsert('pod', { metadata: { name: `p${String(i).padStart(4, '0')}` } });
    let compacted = false;
    // compacts right after the first page, as etcd might between two pages
    const compacting: KubeClient = {
      list: async (path, options) => {
        const page = await client.list(path, options);
        if (!compacted) {
          compacted = true;
          api.upsert('pod', { metadata: { name: 'late' } });
          api.compact();
        }
        return page;
      },
      watch: (path, options) => client.watch(path, options),
    };
    const reflector = reflect('pod', { client: compacting });
    await reflector.whenSynced();
    expect(api.requests.filter((request) => request.verb === 'list').map((request) => request.status)).toEqual([200, 410, 200, 200, 200]);
    // the first page was handed before its list expired, and is handed again as the new list has it
    expect(
      sink
        .summary()
        .slice(0, 500)
        .every((line) => line.startsWith('ADDED')),
    ).toBe(true);
    expect(sink.changes).toHaveLength(1601);
    expect(new Set(sink.changes.slice(500).map((change) => objectKey(change.object))).size).toBe(1101);
    expect(sink.syncs).toHaveLength(1);
    expect(sink.syncs[0].resourceVersion).toBe('1101');
    expect(reflector.stats()).toMatchObject({ lists: 1, expiredRelists: 1, errors: 0 });
  });

  it('delivers watch events in order and keeps its store and resourceVersion with them', async () => {
    await setUp();
    api.upsert('statefulset', { metadata: { name: 'db', namespace: 'data' } });
    const reflector = reflect('statefulset');
    await reflector.whenSynced();
    await until(watching('statefulset', 1), 'the watch');
    api.upsert('statefulset', { metadata: { name: 'cache', namespace: 'data' } });
    api.upsert('statefulset', { metadata: { name: 'db', namespace: 'data' }, spec: { replicas: 3 } });
    api.remove('statefulset', 'data/cache');
    api.upsert('node', { metadata: { name: 'other-kind' } });
    await until(() => sink.changes.length === 4, 'three watch events');
    expect(sink.summary(1)).toEqual(['ADDED data/cache@2', 'MODIFIED data/db@3', 'DELETED data/cache@4']);
    expect(sink.changes[2].object.spec).toEqual({ replicas: 3 });
    expect(reflector.keys()).toEqual(['data/db']);
    expect(reflector.resourceVersion).toBe('4');
    expect(reflector.stats()).toMatchObject({ lists: 1, watches: 1, events: 3, errors: 0 });
  });

  // the API's own IPPool status, written back by the watcher, and a Node's heartbeats came back as
  // MODIFIED messages that changed nothing the API reads
  it.each([
    ['ippool', { spec: { cidr: '10.9.0.0/24' }, status: { allocated: 1 } }, { spec: { cidr: '10.9.0.0/24' }, status: { allocated: 2 } }],
    [
      'node',
      { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 't0', lastHeartbeatTime: 'h1' }] } },
      { status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 't0', lastHeartbeatTime: 'h2' }] } },
    ],
  ] as const)(
    'does not hand on a watched %s MODIFIED that changes nothing it carries, but does a label change and every object of a relist',
    async (kind, before, statusOnly) => {
      await setUp();
      const object = (extra: object, labels = { group: 'a' }) => ({ metadata: { name: 'x1', labels }, ...extra });
      api.upsert(kind, object(before));
      const reflector = reflect(kind);
      await reflector.whenSynced();
      await until(watching(kind, 1), 'the watch');
      api.upsert(kind, object(statusOnly));
      api.upsert(kind, object(statusOnly, { group: 'b' }));
      await until(() => sink.changes.length === 2, 'the label change');
      expect(sink.summary()).toEqual(['ADDED x1@1', 'MODIFIED x1@3']);
      expect(reflector.stats()).toMatchObject({ events: 1, unchanged: 1 });
      reflector.relist();
      await until(() => sink.syncs.length === 2, 'the second list');
      expect(sink.summary(2)).toEqual(['MODIFIED x1@3']);
    },
  );

  it('watches again from the last resourceVersion when the server ends a watch, within the configured timeout range', async () => {
    await setUp();
    const reflector = reflect('node', { watchTimeoutSeconds: { min: 7, max: 9 } });
    await reflector.whenSynced();
    await until(watching('node', 1), 'the watch');
    api.upsert('node', { metadata: { name: 'n1' } });
    await until(() => sink.changes.length === 1, 'the event');
    api.endWatches();
    await until(watching('node', 2), 'the second watch');
    const [first, second] = watchRequests('node');
    expect(first.query.resourceVersion).toBe('0');
    expect(second.query.resourceVersion).toBe('1');
    for (const { query } of [first, second]) expect(Number(query.timeoutSeconds)).toBeGreaterThanOrEqual(7);
    for (const { query } of [first, second]) expect(Number(query.timeoutSeconds)).toBeLessThanOrEqual(9);
    expect(reflector.stats()).toMatchObject({ lists: 1, watches: 2, errors: 0, expiredRelists: 0 });
  });

  it('moves its resourceVersion on with bookmarks, so a broken watch resumes there after compaction without duplicates', async () => {
    await setUp();
    api.upsert('pod', { metadata: { name: 'a' } });
    const reflector = reflect('pod');
    await reflector.whenSynced();
    await until(watching('pod', 1), 'the watch');
    for (let i = 0; i < 3; i++) api.upsert('node', { metadata: { name: `n${i}` } });
    api.sendBookmarks();
    await until(() => reflector.resourceVersion === '4', 'the bookmark');
    api.compact(); // history up to the bookmark is gone: only the bookmark's resourceVersion is still watchable
    api.breakWatches();
    await until(watching('pod', 2), 'the re-watch');
    api.upsert('pod', { metadata: { name: 'b' } });
    await until(() => sink.changes.length === 2, 'the new pod');
    expect(watchRequests('pod').map((request) => [request.query.resourceVersion, request.status])).toEqual([
      ['1', 200],
      ['4', 200],
    ]);
    expect(sink.summary()).toEqual(['ADDED default/a@1', 'ADDED default/b@5']);
    expect(reflector.stats()).toMatchObject({ lists: 1, bookmarks: 1, expiredRelists: 0 });
  });

  it.each(['event', 'status'] as const)(
    'relists on 410 Gone (%s) and reports what vanished during the gap as DELETED',
    async (expiredWatch) => {
      await setUp({ expiredWatch });
      for (const name of ['a', 'b', 'c', 'd']) api.upsert('pod', { metadata: { name, namespace: 'ns' } });
      const reflector = reflect('pod');
      await reflector.whenSynced();
      await until(watching('pod', 1), 'the watch');
      const oldD = reflector.object('ns/d')!;
      // all in one tick: the reflector cannot watch again before the history it needs is gone
      api.breakWatches();
      api.remove('pod', 'ns/a');
      api.upsert('pod', { metadata: { name: 'b', namespace: 'ns' }, spec: { nodeName: 'n2' } });
      api.remove('pod', 'ns/d');
      const newD = api.upsert('pod', { metadata: { name: 'd', namespace: 'ns' } });
      api.upsert('pod', { metadata: { name: 'e', namespace: 'ns' } });
      api.compact();
      await until(() => sink.syncs.length === 2, 'the relist');
      // page by page, then what no page had
      expect(sink.summary(4)).toEqual([
        'MODIFIED ns/b@6',
        'MODIFIED ns/c@3',
        'DELETED ns/d@4',
        'ADDED ns/d@8',
        'ADDED ns/e@9',
        'DELETED ns/a@1',
      ]);
      expect(sink.changes[6].object.metadata.uid).toBe(oldD.metadata.uid);
      expect(sink.changes[7].object.metadata.uid).toBe(newD.metadata.uid);
      expect(sink.syncs[1].items.map((item) => item.key)).toEqual(['ns/b', 'ns/c', 'ns/d', 'ns/e']);
      expect(sink.syncs[1].resourceVersion).toBe('9');
      expect(reflector.stats()).toMatchObject({ lists: 2, expiredRelists: 1 });
      expect(logs).toContain('pod: resourceVersion 4 expired (410 Gone), relisting');
      await until(watching('pod', 3), 'the watch after the relist');
      expect(watchRequests('pod').at(-1)!.query.resourceVersion).toBe('9');
    },
  );

  it('backs off with growing jittered delays on server errors, then recovers without losing events', async () => {
    await setUp();
    api.upsert('node', { metadata: { name: 'n1' } });
    api.failNext('node', 500, 3, 'list');
    const reflector = reflect('node', { backoff: { baseMs: 20, maxMs: 60 } });
    await reflector.whenSynced();
    const delays = logs.filter((line) => line.includes('relisting in')).map((line) => Number(/in (\d+) ms/.exec(line)![1]));
    expect(delays).toHaveLength(3);
    // ceilings 20, 40, 60 (capped); each delay lies between half its ceiling and the ceiling
    [20, 40, 60].forEach((ceiling, i) => {
      expect(delays[i]).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delays[i]).toBeLessThanOrEqual(ceiling);
    });
    expect(logs.some((line) => line.includes('500 InternalError'))).toBe(true);
    await until(watching('node', 1), 'the watch');

    api.failNext('node', 503, 2, 'watch');
    api.breakWatches();
    api.upsert('node', { metadata: { name: 'n2' } });
    await until(() => sink.changes.length === 2, 'the event missed while the watch was down');
    expect(sink.summary()).toEqual(['ADDED n1@1', 'ADDED n2@2']);
    expect(watchRequests('node').map((request) => request.status)).toEqual([200, 503, 503, 200]);
    expect(reflector.stats()).toMatchObject({ lists: 4, errors: 6 });
  });

  it.each([
    [
      'MODIFIED',
      (api: FakeKubeApi) => api.upsert('pod', { metadata: { name: 'a' }, spec: { nodeName: 'n9' } }),
      ['MODIFIED default/a@3', 'MODIFIED default/b@2'],
    ],
    // a relist can only report a deletion with the last object the sink accepted, after the listed ones
    ['DELETED', (api: FakeKubeApi) => api.remove('pod', 'default/a'), ['MODIFIED default/b@2', 'DELETED default/a@1']],
  ])('re-emits a %s change the sink failed on, by relisting', async (type, write, expected) => {
    await setUp();
    api.upsert('pod', { metadata: { name: 'a' } });
    api.upsert('pod', { metadata: { name: 'b' } });
    const reflector = reflect('pod');
    await reflector.whenSynced();
    await until(watching('pod', 1), 'the watch');
    sink.failOn = (change) => change.type === type;
    write(api);
    await until(() => sink.syncs.length === 2, 'the relist');
    expect(sink.summary(2)).toEqual(expected);
    expect(reflector.stats()).toMatchObject({ lists: 2, errors: 1 });
    expect(logs.some((line) => line.includes('sink failed: sink unavailable; relisting in'))).toBe(true);
  });

  it('stops cleanly while watching and while backing off', async () => {
    await setUp();
    const watchingReflector = reflect('node');
    await watchingReflector.whenSynced();
    await until(watching('node', 1), 'the watch');
    api.failNext('pod', 500, 1000);
    const failing = reflect('pod', { backoff: { baseMs: 60_000, maxMs: 60_000 } });
    await until(() => failing.stats().errors === 1, 'the first failure');
    await Promise.all([watchingReflector.stop(), failing.stop()]);
    await until(() => api.activeWatches('node') === 0, 'the watch to close');
    expect(failing.hasSynced()).toBe(false);
    const requests = api.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(api.requests).toHaveLength(requests);
  });
});
