import { describe, expect, it } from "vitest";
import { Waitlist, type Wakeable } from "../../src/cluster/waitlist.js";

describe("Waitlist", () => {
  it("wakes every waiter once, in the order they came, and forgets them", () => {
    const list = new Waitlist();
    const woken: number[] = [];
    for (let i = 0; i < 3; i++) list.add({ wake: () => woken.push(i) });
    list.notifyAll();
    expect(woken).toEqual([0, 1, 2]);
    list.notifyAll();
    expect(woken).toEqual([0, 1, 2]);
  });

  it("a waiter that waits again within its wake stays for the next reply only", () => {
    const list = new Waitlist();
    const woken: string[] = [];
    let again = true;
    const eager: Wakeable = {
      wake: () => {
        woken.push("eager");
        if (again) {
          again = false;
          list.add(eager);
        }
      },
    };
    list.add(eager);
    list.add({ wake: () => woken.push("other") });
    list.notifyAll();
    expect(woken).toEqual(["eager", "other"]);
    list.notifyAll();
    expect(woken).toEqual(["eager", "other", "eager"]);
    list.notifyAll();
    expect(woken).toHaveLength(3);
  });

  it("clear forgets the waiters without waking them, and the list takes new ones", () => {
    const list = new Waitlist();
    const woken: string[] = [];
    list.add({ wake: () => woken.push("cleared") });
    list.clear();
    list.notifyAll();
    expect(woken).toEqual([]);
    list.add({ wake: () => woken.push("new") });
    list.notifyAll();
    expect(woken).toEqual(["new"]);
  });
});
