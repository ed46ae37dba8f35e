// A doubly linked list whose nodes carry their own links, for orders that change on every input (least
// recently used first): append, unlink and move-to-newest in O(1) with no allocation and no Map. LruMap is
// built on it; stores that already hold one object per entry (templates) link those objects directly.

export interface ListNode<N> {
  older: N | undefined;
  newer: N | undefined;
}

export class LinkedList<N extends ListNode<N>> {
  oldest: N | undefined;
  newest: N | undefined;
  size = 0;

  append(node: N): void {
    node.older = this.newest;
    node.newer = undefined;
    if (this.newest !== undefined) this.newest.newer = node;
    else this.oldest = node;
    this.newest = node;
    this.size++;
  }

  unlink(node: N): void {
    if (node.older !== undefined) node.older.newer = node.newer;
    else this.oldest = node.newer;
    if (node.newer !== undefined) node.newer.older = node.older;
    else this.newest = node.older;
    node.older = node.newer = undefined;
    this.size--;
  }

  moveToNewest(node: N): void {
    if (node === this.newest) return;
    this.unlink(node);
    this.append(node);
  }

  clear(): void {
    this.oldest = this.newest = undefined;
    this.size = 0;
  }

  /** Nodes from the oldest; unlinking the current node while iterating is allowed. */
  *[Symbol.iterator](): IterableIterator<N> {
    for (let node = this.oldest; node !== undefined; ) {
      const newer: N | undefined = node.newer;
      yield node;
      node = newer;
    }
  }
}
