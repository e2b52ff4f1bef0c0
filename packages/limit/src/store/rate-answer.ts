import type { RateReply, WindowState } from "./types.js";

/**
 * A rate reply. A class, not an object literal: V8 moves a literal's allocation site to the old
 * generation once a young collection finds most of its recent objects alive (a round's replies wait
 * until the whole round is read), and from then on every reply would be old-generation garbage.
 */
export class RateAnswer implements RateReply {
  constructor(
    public now: number,
    public kept: number,
    public avail: number,
    public granted: number,
    public direct: number,
    public others: number,
    public windows: WindowState[],
  ) {}
}

export class StateCopy implements WindowState {
  constructor(
    public idx: number,
    public cur: number,
    public prev: number,
    public tat: number,
  ) {}
}

export function copyState(s: WindowState): WindowState {
  return new StateCopy(s.idx, s.cur, s.prev, s.tat);
}
