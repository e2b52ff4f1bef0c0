import type { SyncPart } from "./rate-key-parts.js";

/**
 * The sync parts of a family's forgotten subjects, reset and kept for its next new subjects (see
 * docs/protocol.md#s1-7): a subject that comes back then reuses memory the collector already
 * promoted, instead of growing the old generation by a part per subject. A part is kept at most one
 * idle time of the family, so the memory held follows the subjects that were active.
 */
export class SpareParts {
  private readonly parts: (SyncPart | undefined)[] = [];
  /** Local ms each part was kept, in the order of `parts` (ascending). */
  private readonly keptAt: number[] = [];
  /** Index of the oldest part still kept: parts before it were dropped. */
  private head = 0;

  get size(): number {
    return this.parts.length - this.head;
  }

  give(part: SyncPart, now: number): void {
    this.parts.push(part);
    this.keptAt.push(now);
  }

  /** The part kept last (undefined: none). */
  take(): SyncPart | undefined {
    if (this.parts.length === this.head) return undefined;
    this.keptAt.pop();
    const part = this.parts.pop();
    if (this.parts.length === this.head) this.clear();
    return part;
  }

  /** Local ms the oldest part was kept (+Infinity: none). */
  oldestAt(): number {
    return this.size === 0 ? Number.POSITIVE_INFINITY : this.keptAt[this.head]!;
  }

  /** Drops the parts kept before `before` (local ms). */
  dropBefore(before: number): void {
    while (this.head < this.parts.length && this.keptAt[this.head]! < before) {
      this.parts[this.head] = undefined;
      this.head++;
    }
    if (this.head === this.parts.length) this.clear();
    else if (this.head > 1024 && this.head * 2 > this.parts.length) {
      // compact once the dropped half outweighs the kept one: each part moves O(1) times on average
      this.parts.splice(0, this.head);
      this.keptAt.splice(0, this.head);
      this.head = 0;
    }
  }

  private clear(): void {
    this.parts.length = 0;
    this.keptAt.length = 0;
    this.head = 0;
  }
}
