import { windowIndex } from "../store/algorithm.js";
import { TOKEN_BUCKET } from "../store/algorithm-code.js";
import type { RateReply, WindowState } from "../store/types.js";
import type { RateKeyState, StoreView } from "./rate-key.js";

/**
 * A key's view of its last store reply, owned by the key and updated in place by each reply: a view
 * replaced per reply lives seconds (until the key's next sync), so with many keys every reply would
 * leave old-generation garbage behind (the major GCs then mark every key).
 */
export class ReplyView implements StoreView {
  // on the prototype: one field less per key
  get answered(): boolean {
    return true;
  }
  constructor(
    public at: number,
    public readonly windows: WindowState[],
    public reservedOthers: number,
  ) {}
}

/** Makes `reply` the key's view, arrived at `recv` (local ms); the reply's objects are not kept. */
export function viewReply(k: RateKeyState, reply: RateReply, recv: number): void {
  const view = k.view;
  const states = reply.windows;
  if (view instanceof ReplyView && view.windows.length === states.length) {
    view.at = recv;
    view.reservedOthers = reply.others;
    for (let i = 0; i < states.length; i++) {
      const from = states[i]!;
      const to = view.windows[i]!;
      to.idx = from.idx;
      to.cur = from.cur;
      to.prev = from.prev;
      to.tat = from.tat;
    }
    return;
  }
  const spare = k.takeSpareView();
  if (spare !== undefined && spare.windows.length === states.length) {
    // a forgotten subject's view, already in the old generation: written like an update
    k.view = spare;
    viewReply(k, reply, recv);
    return;
  }
  const copies = states.map((w) => ({ idx: w.idx, cur: w.cur, prev: w.prev, tat: w.tat }));
  k.view = new ReplyView(recv, copies, reply.others);
}

/**
 * The key's windows as its last reply showed them, for the store to raise its own to (`seen`):
 * undefined when they hold nothing that still counts at store time `t` (a window or more ago).
 */
export function seenWindows(k: RateKeyState, t: number): WindowState[] | undefined {
  const view = k.view;
  if (!(view instanceof ReplyView)) return undefined;
  const specs = k.windows;
  for (let i = 0; i < view.windows.length; i++) {
    const w = view.windows[i]!;
    if (
      k.alg === TOKEN_BUCKET
        ? w.tat > t
        : w.idx >= windowIndex(t, specs[i]!.windowMs) - 1 && w.cur + w.prev > 0
    )
      return view.windows;
  }
  return undefined;
}
