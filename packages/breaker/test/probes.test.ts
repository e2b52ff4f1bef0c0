import { describe, expect, it } from "vitest";
import { Breakers, MAX_OPEN_FOR_MS, TwoTier } from "../src/index.js";
import { ManualClock, v400, v503 } from "./helpers.js";

const S = 1000;

describe("the provider tier's single probe", () => {
  it("is not taken by a target whose own breaker refuses it", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock });
    tt.vendor.openFor("p", 30 * S);
    tt.deployment.openFor("broken", 120 * S);
    clock.advance(30.5 * S);
    // the broken target is refused by its own tier and must leave the provider's probe alone
    expect(tt.check("broken", "p")).toMatchObject({ allowed: false, tier: "deployment" });
    expect(tt.check("healthy", "p").allowed).toBe(true);
  });

  it("is handed to one caller only", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock });
    tt.vendor.openFor("p", 30 * S);
    clock.advance(30 * S);
    expect(tt.check("a", "p")).toEqual({ allowed: true, probes: ["vendor"] });
    expect(tt.check("b", "p")).toMatchObject({ allowed: false, tier: "vendor" });
  });
});

describe("a probe given back", () => {
  it("lets the next caller probe at once after release", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock });
    tt.deployment.openFor("t", 30 * S);
    clock.advance(30 * S);
    const probe = tt.check("t", "p");
    expect(probe).toEqual({ allowed: true, probes: ["deployment"] });
    // the limiter denied this caller: it never called the upstream
    tt.release("t", "p", probe);
    clock.advance(100);
    expect(tt.check("t", "p").allowed).toBe(true);
  });

  it("an ignore verdict (a 400) gives the probe back instead of blocking the target for 30 s", () => {
    const clock = new ManualClock(0);
    const tt = new TwoTier({ clock });
    for (let i = 0; i < 6; i++) tt.recordFailure(i % 2 ? "t" : "u", "p", v503);
    expect(tt.vendor.state("p").value).toBe("open");
    clock.advance(30 * S);
    expect(tt.check("t", "p").allowed).toBe(true);
    tt.recordFailure("t", "p", v400);
    clock.advance(S);
    expect(tt.check("t", "p").allowed).toBe(true);
  });
});

describe("openFor bounds", () => {
  it("clamps an infinite open to the longest open, so the breaker probes again", () => {
    const clock = new ManualClock(0);
    const b = new Breakers("deployment", undefined, { clock });
    b.openFor("k", Number.POSITIVE_INFINITY);
    expect(b.state("k")).toEqual({ value: "open", until: MAX_OPEN_FOR_MS });
    clock.advance(MAX_OPEN_FOR_MS);
    expect(b.check("k").allowed).toBe(true);
  });

  it("reads a NaN open as the configured openForMs", () => {
    const clock = new ManualClock(0);
    const b = new Breakers("deployment", undefined, { clock });
    b.openFor("k", Number.NaN);
    expect(b.state("k")).toEqual({ value: "open", until: 30 * S });
  });
});

describe("memory of expired entries", () => {
  it("releases opens that expired a window ago and were never probed", () => {
    const clock = new ManualClock(0);
    const b = new Breakers("deployment", undefined, { clock });
    for (let i = 0; i < 100_000; i++) b.openFor(`k${i}`, S);
    b.openFor("still-open", 10 * 60 * S);
    expect(b.size).toBe(100_001);
    clock.advance(S + 60 * S + 1);
    b.check("anything");
    expect(b.size).toBe(1);
    expect(b.state("still-open").value).toBe("open");
  });

  it("releases a half-open entry whose probe never reported, a window after its probe limit", () => {
    const clock = new ManualClock(0);
    const b = new Breakers("deployment", undefined, { clock });
    b.openFor("k", S);
    clock.advance(S);
    b.check("k");
    clock.advance(30 * S + 60 * S + 1);
    b.check("other");
    expect(b.size).toBe(0);
  });
});
