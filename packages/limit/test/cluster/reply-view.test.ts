// A key's view is its own object, updated in place by each reply; the reply's objects are not kept.

import { describe, expect, it } from "vitest";
import type { RateKeyState, StoreView } from "../../src/cluster/rate-key.js";
import { ReplyView, viewReply } from "../../src/cluster/reply-view.js";
import type { RateReply } from "../../src/store/types.js";

const EMPTY: StoreView = Object.freeze({
  at: 0,
  windows: [{ idx: 0, cur: 0, prev: 0, tat: 0 }],
  reservedOthers: 0,
  answered: false,
});

function reply(cur: number, others: number): RateReply {
  return {
    now: 1000,
    kept: 0,
    avail: 10,
    granted: 0,
    direct: 0,
    others,
    windows: [{ idx: 7, cur, prev: 2, tat: 0 }],
  };
}

describe("viewReply", () => {
  it("makes the key's own view on the first reply, then updates that view in place", () => {
    const k = { view: EMPTY, takeSpareView: () => undefined } as unknown as RateKeyState;
    const first = reply(3, 1);
    viewReply(k, first, 50);
    const view = k.view;
    expect(view).toBeInstanceOf(ReplyView);
    expect(view).toMatchObject({
      at: 50,
      reservedOthers: 1,
      answered: true,
      windows: [{ idx: 7, cur: 3, prev: 2 }],
    });
    // the reply's objects are copied, not kept: changing them later does not change the view
    first.windows[0]!.cur = 99;
    expect(view.windows[0]!.cur).toBe(3);
    viewReply(k, reply(5, 4), 80);
    expect(k.view).toBe(view);
    expect(view).toMatchObject({ at: 80, reservedOthers: 4, windows: [{ idx: 7, cur: 5, prev: 2 }] });
    expect(EMPTY.windows[0]!.cur).toBe(0);
  });

  it("replaces a view of another shape (a local entry, or other windows) instead of writing into it", () => {
    const other = new ReplyView(10, [], 0);
    const k = { view: other, takeSpareView: () => undefined } as unknown as RateKeyState;
    viewReply(k, reply(1, 0), 20);
    expect(k.view).not.toBe(other);
    expect(other.at).toBe(10);
    expect(k.view.windows).toHaveLength(1);
  });
});
