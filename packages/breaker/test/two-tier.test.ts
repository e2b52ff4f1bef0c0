import { describe, expect, it } from "vitest";
import { type TransitionEvent, TwoTier } from "../src/index.js";
import { ManualClock, v400, v401, v429, v503 } from "./helpers.js";

const S = 1000;

function setup() {
  const clock = new ManualClock(10_000);
  const events: TransitionEvent[] = [];
  const tt = new TwoTier({ clock, onTransition: (e) => events.push(e) });
  return { clock, tt, events };
}

describe("TwoTier: the documented cases", () => {
  it("case 1: opens on the 5th failure, probes once after 30 s, closes on success", () => {
    const { clock, tt } = setup();
    for (let i = 0; i < 4; i++) tt.recordFailure("d1", "v", v401);
    expect(tt.check("d1", "v")).toEqual({ allowed: true });
    tt.recordFailure("d1", "v", v401);
    const refused = tt.check("d1", "v");
    expect(refused).toMatchObject({ allowed: false, tier: "deployment" });
    expect(!refused.allowed && refused.retryInMs).toBeLessThanOrEqual(30 * S);
    clock.advance(31 * S);
    expect(tt.check("d1", "v").allowed).toBe(true);
    expect(tt.check("d1", "v")).toMatchObject({ allowed: false, tier: "deployment" });
    tt.recordSuccess("d1", "v");
    expect(tt.deployment.state("d1")).toEqual({ value: "closed" });
    expect(tt.check("d1", "v").allowed).toBe(true);
  });

  it("case 2: a failed probe after openFor reopens", () => {
    const { clock, tt } = setup();
    tt.deployment.openFor("d1", 5 * S);
    clock.advance(6 * S);
    expect(tt.check("d1", "v").allowed).toBe(true);
    tt.recordFailure("d1", "v", v401);
    expect(tt.deployment.state("d1")).toEqual({ value: "open", until: clock.now() + 30 * S });
  });

  it("case 3: failures spread past the window do not open", () => {
    const { clock, tt } = setup();
    for (let i = 0; i < 4; i++) {
      tt.recordFailure("d1", "v", v401);
      clock.advance(20 * S);
    }
    tt.recordFailure("d1", "v", v401);
    expect(tt.check("d1", "v").allowed).toBe(true);
  });

  it("case 4: 401s open the target only", () => {
    const { tt } = setup();
    for (let i = 0; i < 10; i++) tt.recordFailure("tenant-a", "elevenlabs", v401);
    expect(tt.check("tenant-a", "elevenlabs")).toMatchObject({ allowed: false, tier: "deployment" });
    expect(tt.check("tenant-b", "elevenlabs").allowed).toBe(true);
  });

  it("case 5: the provider opens only with failures from two targets", () => {
    const one = setup().tt;
    for (let i = 0; i < 10; i++) one.recordFailure("a", "deepgram", v503);
    expect(one.check("c", "deepgram").allowed).toBe(true);
    const two = setup().tt;
    for (let i = 0; i < 6; i++) two.recordFailure(i % 2 === 0 ? "a" : "b", "deepgram", v503);
    expect(two.check("c", "deepgram")).toMatchObject({ allowed: false, tier: "vendor" });
  });

  it("case 6: caller errors never open anything", () => {
    const { tt } = setup();
    for (let i = 0; i < 50; i++) {
      tt.recordFailure("a", "x", v400);
      tt.recordFailure("a", "x", v400);
    }
    expect(tt.check("a", "x").allowed).toBe(true);
    expect(tt.deployment.size + tt.vendor.size).toBe(0);
  });

  it("case 7: a 429 with retry-after 20 opens for exactly 20 s", () => {
    const { clock, tt } = setup();
    tt.recordFailure("d", "v", v429(20 * S));
    expect(tt.check("d", "v")).toEqual({ allowed: false, tier: "deployment", retryInMs: 20 * S });
    expect(tt.vendor.state("v")).toEqual({ value: "closed" });
    clock.advance(20 * S);
    expect(tt.check("d", "v").allowed).toBe(true);
  });

  it("case 8: an unreported probe does not wedge the breaker", () => {
    const { clock, tt } = setup();
    tt.deployment.openFor("d", 1 * S);
    clock.advance(2 * S);
    expect(tt.check("d", "v").allowed).toBe(true);
    clock.advance(31 * S);
    expect(tt.check("d", "v").allowed).toBe(true);
  });
});

describe("TwoTier: order and events", () => {
  it("the provider's refusal wins over the target's", () => {
    const { tt } = setup();
    tt.deployment.openFor("a", 5 * S);
    tt.vendor.openFor("p", 9 * S);
    expect(tt.check("a", "p")).toEqual({ allowed: false, tier: "vendor", retryInMs: 9 * S });
  });

  it("success closes both tiers", () => {
    const { tt } = setup();
    tt.deployment.openFor("a", 5 * S);
    tt.vendor.openFor("p", 5 * S);
    tt.recordSuccess("a", "p");
    expect(tt.check("a", "p").allowed).toBe(true);
  });

  it("reports each transition with tier, key, from and to", () => {
    const { clock, tt, events } = setup();
    for (let i = 0; i < 6; i++) tt.recordFailure(i % 2 === 0 ? "a" : "b", "p", v503);
    clock.advance(30 * S);
    tt.check("c", "p");
    tt.recordSuccess("c", "p");
    expect(events.map(({ tier, key, from, to, cause }) => ({ tier, key, from, to, cause }))).toEqual([
      { tier: "vendor", key: "p", from: "closed", to: "open", cause: "threshold" },
      { tier: "vendor", key: "p", from: "open", to: "halfOpen", cause: "probe" },
      { tier: "vendor", key: "p", from: "halfOpen", to: "closed", cause: "success" },
    ]);
  });
});
