// The sync schedule: keys wait by due time; a round looks at the keys due, and at no others.

import { describe, expect, it } from "vitest";
import { ratePolicy, resolveOptions } from "../../src/cluster/config.js";
import { LocalWindows } from "../../src/cluster/local-counts.js";
import { RateKeyState } from "../../src/cluster/rate-key.js";
import { StoreHealth } from "../../src/cluster/store-health.js";
import { nextRateCheck, SyncSchedule } from "../../src/cluster/sync-schedule.js";

function setup() {
  const health = new StoreHealth(0, 1_000_000);
  const env = {
    options: resolveOptions({ service: "s", podId: "p" }),
    health,
    localWindows: new LocalWindows(),
  };
  const key = (i: number) =>
    new RateKeyState(`k${i}`, `rl2:{s:k${i}}:0`, ratePolicy({ requestsPerSecond: 100 })!, false);
  return { env, schedule: new SyncSchedule(env), key };
}

const collect = (schedule: SyncSchedule, now: number, limit = 512) => {
  const into = { rates: [] as RateKeyState[], caps: [] };
  const full = schedule.collect(now, into, limit, false);
  return { keys: into.rates.map((k) => k.subject), full };
};

describe("SyncSchedule", () => {
  it("a key touched at a fractional time is looked at once that time has passed, not dropped before", () => {
    const { schedule, key } = setup();
    const k = key(1);
    k.refillWanted = true; // due whenever looked at
    schedule.touch(k, 100.3);
    expect(collect(schedule, 100.2).keys).toEqual([]);
    expect(collect(schedule, 101).keys).toEqual(["k1"]);
    expect(k.syncing).toBe(true);
  });

  it("looks only at the keys due; a full round leaves the rest for the next", () => {
    const { schedule, key } = setup();
    const keys = Array.from({ length: 10 }, (_, i) => key(i));
    for (const [i, k] of keys.entries()) {
      k.refillWanted = true;
      schedule.touch(k, i < 6 ? 10 : 5000);
    }
    const first = collect(schedule, 20, 4);
    expect(first).toEqual({ keys: ["k0", "k1", "k2", "k3"], full: true });
    expect(collect(schedule, 21, 4)).toEqual({ keys: ["k4", "k5"], full: false });
    expect(collect(schedule, 4999).keys).toEqual([]);
    expect(collect(schedule, 5000).keys).toEqual(["k6", "k7", "k8", "k9"]);
  });

  it("a key with nothing to push, no credit and no waiter leaves the schedule (dormant)", () => {
    const { env, schedule, key } = setup();
    const k = key(1);
    expect(nextRateCheck(env, k, 10)).toBe(Number.POSITIVE_INFINITY);
    schedule.touch(k, 10);
    expect(collect(schedule, 10).keys).toEqual([]);
    expect(k.dueAt).toBe(Number.POSITIVE_INFINITY);
    expect(schedule.awake.size).toBe(0);
    // admits to push: due within the quiet interval
    k.admitted = 3;
    k.lastSync = 0;
    expect(nextRateCheck(env, k, 10)).toBeLessThanOrEqual(1000);
  });

  it("a quiet key whose credit cannot matter is looked at twice before it lapses, not every 250 ms", () => {
    const { schedule, key } = setup();
    const k = key(1);
    // a tenth of a 100/s limit held, nothing to push: it gives nothing back (creditMatters)
    k.credit = 10;
    k.lastSync = 0;
    k.validUntil = 2250;
    schedule.afterSync(k, 0);
    expect(k.parked).toBe(true);
    const looks = new Set<number>();
    for (let now = 0; now < 2250; now += 20) {
      collect(schedule, now);
      if (k.dueAt !== Number.POSITIVE_INFINITY) looks.add(k.dueAt);
    }
    // before: at lastSync + slowSyncMs / 2, then every max(syncIntervalMs, slowSyncMs / 4) ms: 8 looks
    expect(looks.size).toBeLessThanOrEqual(2);
    expect(schedule.awake.has(k)).toBe(true);
  });

  it("a quiet key whose credit matters keeps being looked at", () => {
    const { schedule, key } = setup();
    const k = key(1);
    k.credit = 80; // 80 % of the limit held: given back once the key stays quiet
    k.lastSync = 0;
    k.validUntil = 2250;
    schedule.afterSync(k, 0);
    expect(k.parked).toBe(false);
    expect(k.dueAt).toBe(500);
  });
});
