import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@ipledger/messaging';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { eventually } from '../../../test/support/eventually';
import { runCli } from '../src/cli';

/**
 * A message that fails for a reason other than a refusal (here a trigger on the nodes read model
 * refuses one node's row, as a bug or a broken database object would) is retried a few times and
 * then parked, while the others go on; it is applied again on the object's next change or when an
 * operator runs `unpark`.
 */
describe('parking messages that keep failing', () => {
  let bus: TestBus;
  let api: TestApi;
  let rv = 1;

  const node = (name: string, labels: Record<string, string>, uid = randomUUID()): KubeObject => ({
    metadata: { name, uid, resourceVersion: String(++rv), labels },
  });
  const publish = async (type: 'ADDED' | 'MODIFIED', object: KubeObject) => {
    await bus.publisher.change({ kind: 'node', type, object });
    await bus.publisher.flush();
  };
  const row = async (name: string) =>
    (
      await api.db.pool.query(`SELECT status, parked_sequence, unpark_requested FROM kubernetes_objects WHERE kind = 'node' AND key = $1`, [
        name,
      ])
    ).rows[0] as { status: string; parked_sequence: string | null; unpark_requested: boolean } | undefined;
  const parkedCount = async () =>
    Number(
      /ipledger_kubernetes_messages_total\{kind="node",outcome="parked"\} (\d+)/.exec((await api.http().get('/metrics')).text)?.[1] ?? 0,
    );
  const poison = (name: string) =>
    api.db.pool.query(
      `CREATE OR REPLACE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.name = '${name}' THEN RAISE EXCEPTION 'node % is poisoned', NEW.name; END IF; RETURN NEW; END $$;
       CREATE OR REPLACE TRIGGER poison BEFORE INSERT OR UPDATE ON nodes FOR EACH ROW EXECUTE FUNCTION poison();`,
    );
  const cure = () => api.db.pool.query('DROP TRIGGER poison ON nodes');

  beforeAll(async () => {
    bus = await createTestBus('parking');
    api = await startTestApi('kubernetes_parking', { env: { ...bus.env, IPAM_KUBERNETES_MAX_ATTEMPTS: '3' } });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  it('parks the message after the bounded attempts, counts and records it, and goes on with the others', async () => {
    await poison('sick');
    await publish('ADDED', node('sick', { a: '1' }));
    await publish('ADDED', node('healthy', { a: '1' }));
    const parked = await eventually(
      () => row('sick'),
      (r) => r?.parked_sequence != null,
      30_000,
    );
    expect(parked?.status).toMatch(/^parked after 3 attempt\(s\): node sick is poisoned/);
    await bus.idle();
    expect(await parkedCount()).toBe(1);
    await api.http().get('/v1/nodes/sick').expect(404);
    await api.http().get('/v1/nodes/healthy').expect(200);
  });

  it('applies it again when an operator unparks it', async () => {
    await cure();
    const lines: string[] = [];
    expect(await runCli(['parked'], (line) => lines.push(line), { DATABASE_URL: api.db.url })).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^node\/sick\t\d+\tparked after 3 attempt/), '1 parked message(s)']);
    lines.length = 0;
    expect(await runCli(['unpark', 'node/sick', 'node/healthy'], (line) => lines.push(line), { DATABASE_URL: api.db.url })).toBe(1);
    expect(lines[0]).toMatch(/^node\/sick: message \d+ will be applied again$/);
    const applied = await eventually(
      () => row('sick'),
      (r) => r?.status === 'labels applied',
      20_000,
    );
    expect(applied).toEqual({ status: 'labels applied', parked_sequence: null, unpark_requested: false });
    expect((await api.http().get('/v1/nodes/sick').expect(200)).body.labels).toEqual({ a: '1' });
  });

  it('applies the object again at its next change, which replaces the parked message', async () => {
    await poison('flaky');
    const uid = randomUUID();
    await publish('ADDED', node('flaky', { v: '1' }, uid));
    await eventually(
      () => row('flaky'),
      (r) => r?.parked_sequence != null,
      30_000,
    );
    await cure();
    await publish('MODIFIED', node('flaky', { v: '2' }, uid));
    await bus.idle();
    expect(await row('flaky')).toEqual({ status: 'labels applied', parked_sequence: null, unpark_requested: false });
    expect((await api.http().get('/v1/nodes/flaky').expect(200)).body.labels).toEqual({ v: '2' });
    expect(await parkedCount()).toBe(2);
  });

  it('says a parked message is gone when its stream was made again since, rather than apply what its sequence holds now', async () => {
    await poison('lost');
    const uid = randomUUID();
    await publish('ADDED', node('lost', { v: '1' }, uid));
    const parked = await eventually(
      () => row('lost'),
      (r) => r?.parked_sequence != null,
      30_000,
    );
    await bus.idle();
    await bus.jsm.streams.delete(bus.names.stream);
    // the consumer makes it again, and the new stream holds other messages at the parked sequence
    await eventually(
      () => bus.jsm.streams.info(bus.names.stream).catch(() => null),
      (info) => info !== null,
      20_000,
    );
    for (let i = 0; i <= Number(parked!.parked_sequence); i++) await publish('ADDED', node(`filler-${i}`, { a: '1' }));
    await bus.idle();
    await cure();
    expect(await runCli(['unpark', 'node/lost'], () => undefined, { DATABASE_URL: api.db.url })).toBe(0);
    const gone = await eventually(
      () => row('lost'),
      (r) => r?.status.startsWith('parked: the message is no longer in the stream') ?? false,
      20_000,
    );
    expect(gone?.status).toBe(
      'parked: the message is no longer in the stream (aged out, or the stream was made again); the next change or sync of the object applies it',
    );
    await api.http().get('/v1/nodes/lost').expect(404);
    // the object's next message (a relist's) is what counts
    await publish('MODIFIED', node('lost', { v: '2' }, uid));
    await bus.idle();
    expect((await api.http().get('/v1/nodes/lost').expect(200)).body.labels).toEqual({ v: '2' });
  });
});
