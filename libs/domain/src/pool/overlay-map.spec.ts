import { seededRandom } from '../../../../test/support/seeded-random';
import { OverlayMap } from './overlay-map';

describe('OverlayMap', () => {
  // drafts of drafts, each with a few sets and deletes, past many flattens: the same entries as one
  // Map given the same writes, and a fresh draft (copied or flattened) iterates in its source's order.
  // The order is not a plain Map's: a key of the base deleted and set again keeps its place.
  it.each([1, 2, 3, 4, 5])('reads and iterates as a plain Map through drafts of drafts (seed %i)', (seed) => {
    const next = seededRandom(seed);
    const model = new Map(Array.from({ length: 50 }, (_, i) => [i, `v${i}`] as [number, string]));
    let drafted: ReadonlyMap<number, string> = new Map(model);
    const olderDrafts: Array<[ReadonlyMap<number, string>, Array<[number, string]>]> = [];
    for (let draft = 0; draft < 400; draft++) {
      const overlay = OverlayMap.over(drafted);
      for (let change = Math.floor(next() * 4); change >= 0; change--) {
        const key = Math.floor(next() * 120);
        if (next() < 0.4) {
          expect(overlay.delete(key)).toBe(model.delete(key));
        } else {
          overlay.set(key, `d${draft}`);
          model.set(key, `d${draft}`);
        }
      }
      const byKey = (entries: Iterable<[number, string]>) => [...entries].sort(([a], [b]) => a - b);
      expect(byKey(overlay)).toEqual(byKey(model));
      expect([...OverlayMap.over(overlay)]).toEqual([...overlay]);
      expect(overlay.size).toBe(model.size);
      for (let key = 0; key < 120; key += 7) expect([overlay.has(key), overlay.get(key)]).toEqual([model.has(key), model.get(key)]);
      if (draft % 50 === 0) olderDrafts.push([overlay, [...overlay]]);
      drafted = overlay;
    }
    // a draft never changes what it was drafted from
    for (const [older, entries] of olderDrafts) expect([...older]).toEqual(entries);
  });
});
