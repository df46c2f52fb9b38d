/** Slots of a node: 32, so a million entries are 4 levels deep. */
const BITS = 5;
const WIDTH = 1 << BITS;
const MASK = WIDTH - 1;

type Node<T> = ReadonlyArray<Node<T> | T>;

/**
 * An immutable list one can only read by index and append to: an append returns a new list that
 * shares all but one path of the old one (a 32-way trie: O(log32 n) to append or read, O(1) to
 * keep a copy). For a state many drafts start from, none of which may change what it shares.
 */
export class AppendOnlyList<T> {
  private constructor(
    private readonly root: Node<T>,
    readonly length: number,
    /** levels above the leaves */
    private readonly depth: number,
  ) {}

  static empty<T>(): AppendOnlyList<T> {
    return new AppendOnlyList<T>([], 0, 0);
  }

  static of<T>(items: readonly T[]): AppendOnlyList<T> {
    return items.reduce((list, item) => list.push(item), AppendOnlyList.empty<T>());
  }

  get(index: number): T {
    let node = this.root;
    for (let level = this.depth; level > 0; level--) node = node[(index >>> (level * BITS)) & MASK] as Node<T>;
    return node[index & MASK] as T;
  }

  push(item: T): AppendOnlyList<T> {
    // full at this depth: the old root becomes the first child of a new one
    const full = this.length === WIDTH ** (this.depth + 1);
    const root = full ? [this.root] : this.root;
    const depth = full ? this.depth + 1 : this.depth;
    return new AppendOnlyList(withItem(root, depth, this.length, item), this.length + 1, depth);
  }
}

/** A copy of the path to `index` with `item` set at its end; every other node is shared. */
function withItem<T>(node: Node<T> | undefined, level: number, index: number, item: T): Node<T> {
  const copy = node ? node.slice() : [];
  if (level === 0) copy[index & MASK] = item;
  else {
    const slot = (index >>> (level * BITS)) & MASK;
    copy[slot] = withItem(node?.[slot] as Node<T> | undefined, level - 1, index, item);
  }
  return copy;
}
