// A map that keeps its entries in use order, with O(1) insert, lookup, delete, move-to-newest and take-oldest.
// Every bound in the collectors (templates, sessions, sequence streams, layouts, known sources) evicts its
// oldest entry, often once per input under attack; a plain Map used this way (delete the first key, append)
// is not O(1) in V8: deleted entries stay at the front of its table until it is rehashed, and finding the
// first live key walks over them (measured: 113 µs per eviction at 65,536 entries). So the order is a doubly
// linked list here (linked-list.ts), and the Map only finds nodes.
import { LinkedList, type ListNode } from './linked-list.js';

interface Node<K, V> extends ListNode<Node<K, V>> {
  readonly key: K;
  value: V;
}

export class LruMap<K, V> {
  readonly #nodes = new Map<K, Node<K, V>>();
  readonly #order = new LinkedList<Node<K, V>>();

  get size(): number {
    return this.#nodes.size;
  }

  has(key: K): boolean {
    return this.#nodes.has(key);
  }

  /** The value, without changing the order. */
  get(key: K): V | undefined {
    return this.#nodes.get(key)?.value;
  }

  /** Sets the value and makes the entry the newest. */
  set(key: K, value: V): this {
    const node = this.#nodes.get(key);
    if (node === undefined) {
      const added: Node<K, V> = { key, value, older: undefined, newer: undefined };
      this.#nodes.set(key, added);
      this.#order.append(added);
    } else {
      node.value = value;
      this.#order.moveToNewest(node);
    }
    return this;
  }

  /** Makes an entry the newest; returns whether it exists. */
  touch(key: K): boolean {
    const node = this.#nodes.get(key);
    if (node === undefined) return false;
    this.#order.moveToNewest(node);
    return true;
  }

  delete(key: K): boolean {
    const node = this.#nodes.get(key);
    if (node === undefined) return false;
    this.#nodes.delete(key);
    this.#order.unlink(node);
    return true;
  }

  /** The oldest entry, left in place. */
  oldest(): [K, V] | undefined {
    const node = this.#order.oldest;
    return node === undefined ? undefined : [node.key, node.value];
  }

  /** Removes and returns the oldest entry. */
  shift(): [K, V] | undefined {
    const node = this.#order.oldest;
    if (node === undefined) return undefined;
    this.delete(node.key);
    return [node.key, node.value];
  }

  clear(): void {
    this.#nodes.clear();
    this.#order.clear();
  }

  /** Entries from the oldest; deleting the current entry while iterating is allowed. */
  *entries(): IterableIterator<[K, V]> {
    for (const node of this.#order) yield [node.key, node.value];
  }

  *values(): IterableIterator<V> {
    for (const node of this.#order) yield node.value;
  }

  *keys(): IterableIterator<K> {
    for (const node of this.#order) yield node.key;
  }
}
