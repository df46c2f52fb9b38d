import { Client } from 'pg';
import { decideSetNodeLabels, NodeAggregate, type CommandMetadata } from '@ipledger/domain';
import { AggregateRepository } from '@ipledger/event-store';
import type { ClusterChange } from './kube-message';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { EventWriter } from '../infrastructure/event-writer';
import { DeferredWrites, OwnTransaction } from '../infrastructure/unit-of-work';
import { CommitBatch, type Decided } from './commit-batch';
import { claimObject, StaleMessage } from './kubernetes-objects';

const node = (name: string, labels: Record<string, string>): ClusterChange => ({
  cluster: 'default',
  kind: 'node',
  type: 'MODIFIED',
  object: { metadata: { name, uid: `uid-${name}`, resourceVersion: '1', labels } },
});

const metadata = (seq: number): CommandMetadata => ({
  actor: 'watcher',
  source: 'kubernetes',
  correlationId: `c-${seq}`,
  causationId: `m-${seq}`,
  messageId: `m-${seq}`,
  streamSequence: seq,
});

/** The shared commit of Node messages decided alone, against a real PostgreSQL. */
describe('CommitBatch', () => {
  let db: TestDatabase;
  let writer: EventWriter;
  /** the names whose message was applied alone, in the order it was */
  let alone: string[];

  beforeAll(async () => {
    db = await createTestDatabase('commit_batch');
  });
  beforeEach(() => {
    writer = new EventWriter(db.pool, new AggregateRepository(db.pool));
    alone = [];
  });
  afterAll(async () => {
    await db.drop();
  });

  /** A Node message decided as the consumer decides it: the labels command run with its append deferred, its reads noted. */
  const decide = async (name: string, seq: number, labels: Record<string, string>): Promise<Decided> => {
    const deferred = new DeferredWrites();
    await writer.decideAndAppend(NodeAggregate, name, (s) => decideSetNodeLabels(s, name, labels), metadata(seq), deferred);
    const { changes } = deferred;
    const claim = { change: node(name, labels), streamEpoch: 0, streamSequence: seq, status: 'labels applied' };
    return {
      claim,
      changes,
      reads: deferred.reads,
      // as the consumer's fallback: this message's own transaction, with its own order check
      alone: async () => {
        alone.push(name);
        await writer.commitGroup(changes, deferred.reads, (client) => claimObject(client, claim.change, claim, claim.status));
      },
    };
  };
  const labelsOf = async (name: string) =>
    (await db.pool.query<{ labels: Record<string, string> }>('SELECT labels FROM nodes WHERE name = $1', [name])).rows[0]?.labels;
  const recorded = async (name: string) =>
    (await db.pool.query<{ seq: string }>(`SELECT stream_sequence AS seq FROM kubernetes_objects WHERE kind = 'node' AND key = $1`, [name]))
      .rows[0]?.seq;

  it('commits the messages that meet in one transaction, every change an event under its own message, each answered once committed', async () => {
    const batch = new CommitBatch(writer);
    const decided = await Promise.all(Array.from({ length: 50 }, (_, i) => decide(`n-${i}`, 100 + i, { rack: `r-${i}` })));
    const seen = await Promise.all(
      decided.map((d, i) => batch.add(d).then(async () => ({ labels: await labelsOf(`n-${i}`), seq: await recorded(`n-${i}`) }))),
    );
    // answered after the commit: its node's row and its object's record are there for anyone to read
    expect(seen).toEqual(decided.map((_, i) => ({ labels: { rack: `r-${i}` }, seq: String(100 + i) })));
    expect(alone).toEqual([]);
    const { rows } = await db.pool.query<{ transactions: string; events: string; messages: string }>(
      `SELECT count(DISTINCT transaction_id) AS transactions, count(*) AS events, count(DISTINCT metadata->>'messageId') AS messages
         FROM events WHERE stream_id LIKE 'node-n-%'`,
    );
    expect(rows[0]).toEqual({ transactions: '1', events: '50', messages: '50' });
  });

  it('answers no message before the commit: a batch kept from committing leaves every message unanswered', async () => {
    const batch = new CommitBatch(writer);
    const decided = await Promise.all([decide('held-1', 200, { a: '1' }), decide('held-2', 201, { a: '2' })]);
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE nodes IN EXCLUSIVE MODE');
      let answered = 0;
      const done = decided.map((d) => batch.add(d).then(() => answered++));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(answered).toBe(0);
      await locker.query('COMMIT');
      await Promise.all(done);
      expect(answered).toBe(2);
    } finally {
      await locker.end();
    }
  });

  it('applies each message alone, in the batch order, when one is stale: the others are committed, the stale one changes nothing', async () => {
    // a newer message of s-2 was applied first (by another replica)
    await (await decide('s-2', 900, { v: 'new' })).alone();
    alone = [];
    const batch = new CommitBatch(writer);
    const decided = await Promise.all([decide('s-1', 300, { v: '1' }), decide('s-2', 301, { v: 'old' }), decide('s-3', 302, { v: '3' })]);
    const outcomes = await Promise.allSettled(decided.map((d) => batch.add(d)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toBeInstanceOf(StaleMessage);
    expect(alone).toEqual(['s-1', 's-2', 's-3']);
    expect([await labelsOf('s-1'), await labelsOf('s-2'), await labelsOf('s-3')]).toEqual([{ v: '1' }, { v: 'new' }, { v: '3' }]);
    expect(await recorded('s-2')).toBe('900');
  });

  it('commits nothing of a decision whose stream moved after it was made: that message fails alone, the others are committed', async () => {
    const batch = new CommitBatch(writer);
    const decided = await Promise.all([decide('m-1', 400, { v: '1' }), decide('m-2', 401, { v: 'decided' })]);
    // m-2 changed meanwhile (a REST request): the decision above was made on a state that is gone
    await new EventWriter(db.pool, new AggregateRepository(db.pool)).decideAndAppend(
      NodeAggregate,
      'm-2',
      (s) => decideSetNodeLabels(s, 'm-2', { v: 'rest' }),
      metadata(0),
      new OwnTransaction({ retries: true }),
    );
    const outcomes = await Promise.allSettled(decided.map((d) => batch.add(d)));
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    expect(await labelsOf('m-1')).toEqual({ v: '1' });
    expect(await labelsOf('m-2')).toEqual({ v: 'rest' });
  });
});
