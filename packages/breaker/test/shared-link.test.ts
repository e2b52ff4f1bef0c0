import { describe, expect, it } from "vitest";
import {
  BreakerConfig,
  Breakers,
  PROBE_RETRY_MS,
  type SharedBreakerLink,
  type Tier,
  type TransitionEvent,
} from "../src/index.js";
import { ManualClock } from "./helpers.js";

/** A link that records what Breakers publish and lets a probe through only when told to. */
class RecordingLink implements SharedBreakerLink {
  attached: Breakers[] = [];
  changes: Array<{ event: TransitionEvent; untilMs: number | undefined }> = [];
  probeAllowed = false;
  attach(b: Breakers): void {
    this.attached.push(b);
  }
  mayProbe(_tier: Tier, _key: string): boolean {
    return this.probeAllowed;
  }
  changed(event: TransitionEvent, untilMs: number | undefined): void {
    this.changes.push({ event, untilMs });
  }
}

function setup() {
  const clock = new ManualClock(0);
  const link = new RecordingLink();
  const events: TransitionEvent[] = [];
  const b = new Breakers("deployment", BreakerConfig.deployment(), {
    clock,
    shared: link,
    onTransition: (e) => events.push(e),
  });
  return { clock, link, b, events };
}

describe("Breakers with a shared link", () => {
  it("publishes its own opens with their end, and closes", () => {
    const { link, b } = setup();
    expect(link.attached).toEqual([b]);
    for (let i = 0; i < 5; i++) b.recordFailure("t", "t");
    expect(link.changes.map((c) => [c.event.to, c.event.cause, c.untilMs])).toEqual([
      ["open", "threshold", 30_000],
    ]);
  });

  it("an expired open probes only where the link allows it", () => {
    const { clock, link, b } = setup();
    for (let i = 0; i < 5; i++) b.recordFailure("t", "t");
    clock.advance(30_000);
    expect(b.check("t")).toEqual({ allowed: false, tier: "deployment", retryInMs: PROBE_RETRY_MS });
    expect(b.peek("t").allowed).toBe(false);
    link.probeAllowed = true;
    expect(b.check("t")).toEqual({ allowed: true, probes: ["deployment"] });
  });

  it("applies others' state without publishing it back", () => {
    const { clock, link, b, events } = setup();
    b.applyShared("t", { value: "open", ms: 5_000 });
    expect(b.check("t")).toMatchObject({ allowed: false, retryInMs: 5_000 });
    b.applyShared("t", { value: "open", ms: 1_000 }); // a shorter open does not cut a longer one
    expect(b.state("t")).toEqual({ value: "open", until: 5_000 });
    clock.advance(5_000);
    b.applyShared("t", { value: "closed" });
    expect(b.check("t")).toEqual({ allowed: true });
    expect(events.map((e) => `${e.from}->${e.to}:${e.cause}`)).toEqual([
      "closed->open:shared",
      "open->closed:shared",
    ]);
    expect(link.changes).toEqual([]);
  });
});
