/**
 * Waiting work, served round-robin across owners: each owner's items stay in order, and an owner
 * with a thousand items waiting gets the next free slot no more often than an owner with one.
 */
export class FairQueue<T> {
  private readonly byOwner = new Map<string, T[]>();
  /** Owners with waiting items, in the order they are served next. */
  private readonly ring: string[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  sizeOf(owner: string): number {
    return this.byOwner.get(owner)?.length ?? 0;
  }

  push(owner: string, item: T): void {
    let items = this.byOwner.get(owner);
    if (!items) {
      items = [];
      this.byOwner.set(owner, items);
      this.ring.push(owner);
    }
    items.push(item);
    this.count++;
  }

  /** The next item: the first one of the owner whose turn it is. */
  shift(): T | undefined {
    const owner = this.ring.shift();
    if (owner === undefined) return undefined;
    const items = this.byOwner.get(owner)!;
    const item = items.shift()!;
    this.count--;
    if (items.length) this.ring.push(owner);
    else this.byOwner.delete(owner);
    return item;
  }

  /** Drops a waiting item (its caller went away); false when it was not waiting. */
  remove(owner: string, item: T): boolean {
    const items = this.byOwner.get(owner);
    const at = items ? items.indexOf(item) : -1;
    if (!items || at < 0) return false;
    items.splice(at, 1);
    this.count--;
    if (items.length === 0) {
      this.byOwner.delete(owner);
      this.ring.splice(this.ring.indexOf(owner), 1);
    }
    return true;
  }
}
