import fc from 'fast-check';
import { deepFreeze } from '../../../../test/support/deep-freeze';
import { AppendOnlyList } from './append-only-list';
import { CoolingQueue } from './cooling-queue';

/** The model: addresses with their release times, oldest first, a re-added one moved to the back. */
type Model = Array<[bigint, number]>;

type Op = { kind: 'add'; ip: bigint } | { kind: 'delete'; ip: bigint } | { kind: 'expire'; by: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 15n }).map((ip) => ({ kind: 'add' as const, ip })) },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 15n }).map((ip) => ({ kind: 'delete' as const, ip })) },
  { weight: 1, arbitrary: fc.nat({ max: 1000 }).map((back) => ({ kind: 'expire' as const, by: -back })) },
);

function readsAs({ queue, model }: { queue: CoolingQueue; model: Model }): void {
  expect(queue.inOrder()).toEqual(model);
  expect(queue.size).toBe(model.length);
  const [first] = model;
  expect(queue.first()).toEqual(first ? { ip: first[0], releasedAt: first[1] } : null);
  expect(new Set(queue.keys())).toEqual(new Set(model.map(([ip]) => ip)));
}

/**
 * Each step drafts from any earlier version (frozen, as the aggregate cache shares them) and
 * changes the draft: every version must still read as its model, in release order, however many
 * drafts appended to what it shares, and whatever the drafts' compactions.
 */
it('reads as an ordered map of release times in every version, drafts never changing the version they come from', () => {
  fc.assert(
    fc.property(
      fc.boolean(),
      fc.array(
        fc.tuple(fc.constantFrom('latest', 'latest', 'latest', 'any'), fc.nat(), fc.array(op, { minLength: 1, maxLength: 6, size: 'max' })),
        {
          minLength: 1,
          maxLength: 100,
          size: 'max',
        },
      ),
      (stuck, steps) => {
        const start = CoolingQueue.empty();
        // a release not recorded yet never expires: everything behind it piles up until compacted
        if (stuck) start.add(99n, Infinity);
        const versions: Array<{ queue: CoolingQueue; model: Model }> = [
          { queue: deepFreeze(start), model: stuck ? [[99n, Infinity]] : [] },
        ];
        let clock = 0;
        for (const [from, pick, ops] of steps) {
          // mostly the latest version, so lineages grow long enough for dead entries to be compacted away
          const base = from === 'any' ? versions[pick % versions.length] : versions[versions.length - 1];
          const queue = base.queue.draft();
          let model = [...base.model];
          for (const o of ops) {
            clock += 1;
            if (o.kind === 'add') {
              model = [...model.filter(([ip]) => ip !== o.ip), [o.ip, clock]];
              queue.add(o.ip, clock);
            } else if (o.kind === 'delete') {
              expect(queue.delete(o.ip)).toBe(model.some(([ip]) => ip === o.ip));
              model = model.filter(([ip]) => ip !== o.ip);
            } else {
              const by = clock + o.by;
              const freed: bigint[] = [];
              queue.expire(by, (ip) => freed.push(ip));
              // the front goes while it is old enough; a younger one stops it, older ones behind it wait
              const stop = model.findIndex(([, at]) => at > by);
              const gone = stop === -1 ? model.length : stop;
              expect(freed).toEqual(model.slice(0, gone).map(([ip]) => ip));
              model = model.slice(gone);
            }
          }
          versions.push({ queue: deepFreeze(queue), model });
          readsAs(versions[versions.length - 1]);
          readsAs(base);
        }
        versions.forEach(readsAs);
      },
    ),
    { numRuns: 100 },
  );
});

it('appends across trie levels, each older list keeping its items and length', () => {
  const lists = [AppendOnlyList.empty<number>()];
  // past 32 and 32² items: two new levels
  for (let i = 0; i < 40_000; i++) lists.push(lists[lists.length - 1].push(i * 3));
  const last = lists[lists.length - 1];
  expect(last.length).toBe(40_000);
  for (const i of [0, 31, 32, 1023, 1024, 1025, 32_767, 32_768, 39_999]) expect(last.get(i)).toBe(i * 3);
  for (const n of [1, 32, 33, 1024, 1025, 32_769]) {
    expect(lists[n].length).toBe(n);
    expect(lists[n].get(n - 1)).toBe((n - 1) * 3);
  }
  const frozen = deepFreeze(AppendOnlyList.of([1, 2, 3]));
  expect(frozen.push(4).get(3)).toBe(4);
  expect(frozen.length).toBe(3);
});
