/**
 * A Map written on top of a read-only base map that it never changes: writes and deletions stay in
 * the overlay, reads fall through to the base. Copying a pool's holders for every batch would cost
 * O(holders); this costs O(changes in the batch).
 */
/** Changes an overlay carries before a new draft copies the map whole instead. */
const FLATTEN_AT = 1024;

export class OverlayMap<K, V> implements Map<K, V> {
  readonly [Symbol.toStringTag] = 'OverlayMap';
  private readonly added = new Map<K, V>();
  /** keys of the base deleted here (and not set again) */
  private readonly removed = new Set<K>();
  /** keys in `added` that the base does not have */
  private extra = 0;

  constructor(private readonly base: ReadonlyMap<K, V>) {}

  /**
   * An overlay on `base` whose reads stay one layer deep, for a state drafted from a draft: an
   * overlay's changes are copied onto the base below it, and past FLATTEN_AT changes the whole map
   * becomes a plain Map (O(size) once every FLATTEN_AT changes, rather than a chain to walk).
   */
  static over<K, V>(base: ReadonlyMap<K, V>): OverlayMap<K, V> {
    if (!(base instanceof OverlayMap)) return new OverlayMap(base);
    const below = base as OverlayMap<K, V>;
    if (below.added.size + below.removed.size > FLATTEN_AT) return new OverlayMap(new Map(below));
    const overlay = new OverlayMap<K, V>(below.base);
    for (const [key, value] of below.added) overlay.added.set(key, value);
    for (const key of below.removed) overlay.removed.add(key);
    overlay.extra = below.extra;
    return overlay;
  }

  get size(): number {
    return this.base.size - this.removed.size + this.extra;
  }

  get(key: K): V | undefined {
    if (this.added.has(key)) return this.added.get(key);
    return this.removed.has(key) ? undefined : this.base.get(key);
  }

  has(key: K): boolean {
    return this.added.has(key) || (!this.removed.has(key) && this.base.has(key));
  }

  set(key: K, value: V): this {
    if (this.base.has(key)) this.removed.delete(key);
    else if (!this.added.has(key)) this.extra++;
    this.added.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const had = this.has(key);
    if (this.added.delete(key) && !this.base.has(key)) this.extra--;
    if (this.base.has(key)) this.removed.add(key);
    return had;
  }

  clear(): void {
    for (const key of this.base.keys()) this.removed.add(key);
    this.added.clear();
    this.extra = 0;
  }

  forEach(callback: (value: V, key: K, map: Map<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.iterate()) callback.call(thisArg, value, key, this);
  }

  entries(): MapIterator<[K, V]> {
    return this.iterate() as MapIterator<[K, V]>;
  }

  keys(): MapIterator<K> {
    return this.project(([key]) => key);
  }

  values(): MapIterator<V> {
    return this.project(([, value]) => value);
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  private *iterate(): Generator<[K, V], undefined> {
    // the base's order first, as a Map keeps a key where it was first set
    for (const [key, value] of this.base) {
      if (this.added.has(key)) yield [key, this.added.get(key)!];
      else if (!this.removed.has(key)) yield [key, value];
    }
    for (const entry of this.added) if (!this.base.has(entry[0])) yield entry;
    return undefined;
  }

  private project<T>(pick: (entry: [K, V]) => T): MapIterator<T> {
    const entries = this.iterate();
    return (function* () {
      for (const entry of entries) yield pick(entry);
      return undefined;
    })();
  }
}
