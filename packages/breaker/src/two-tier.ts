import {
  type BreakerCheck,
  Breakers,
  type SharedBreakerLink,
  type Tier,
  type TransitionEvent,
} from "./breakers.js";
import type { Clock } from "./clock.js";
import { BreakerConfig } from "./config.js";
import type { BreakerMetrics } from "./metrics.js";

/** Structurally the same as @resil/classify's `BreakerSignal`, so breaker needs no run-time dependency. */
export type BreakerSignalLike =
  | { kind: "ignore" }
  | { kind: "deployment" }
  | { kind: "vendor" }
  | { kind: "openFor"; ms: number };

/** Any verdict that carries a breaker signal (a classify `Verdict` is one). */
export interface BreakerVerdict {
  breaker: BreakerSignalLike;
}

export interface TwoTierOptions {
  /** Default `BreakerConfig.deployment()`. */
  deployment?: BreakerConfig;
  /** Default `BreakerConfig.vendor()`. */
  vendor?: BreakerConfig;
  /** Shared by both tiers. Default `systemClock`. */
  clock?: Clock;
  /** Transitions of both tiers (the event names its tier). */
  onTransition?: (event: TransitionEvent) => void;
  sweepIntervalMs?: number;
  /** State shared with other replicas, for both tiers (e.g. `RedisSharedBreakers`); off by default. */
  shared?: SharedBreakerLink;
}

/** Per-target and per-provider breakers; the provider key (provider + API host) is built by the caller. */
export class TwoTier {
  readonly deployment: Breakers;
  readonly vendor: Breakers;

  constructor(options: TwoTierOptions = {}) {
    const { clock, onTransition, sweepIntervalMs, shared } = options;
    const common = { clock, onTransition, sweepIntervalMs, shared };
    this.deployment = new Breakers("deployment", options.deployment ?? BreakerConfig.deployment(), common);
    this.vendor = new Breakers("vendor", options.vendor ?? BreakerConfig.vendor(), common);
  }

  /**
   * The provider tier's refusal wins, then the target's. A probe is taken only when both tiers let
   * the call through, so a target refused by its own tier never takes its provider's single probe.
   */
  check(target: string, vendor: string): BreakerCheck {
    const v = this.vendor.peek(vendor);
    if (!v.allowed) return this.vendor.check(vendor);
    const d = this.deployment.peek(target);
    if (!d.allowed) return this.deployment.check(target);
    const vc = this.vendor.check(vendor);
    const dc = this.deployment.check(target);
    if (!vc.allowed || !dc.allowed) return vc.allowed ? dc : vc;
    if (!vc.probes) return dc;
    if (!dc.probes) return vc;
    return { allowed: true, probes: [...vc.probes, ...dc.probes] };
  }

  /** Gives back the probes `check` handed out (its `probes`); without `check`, any running probe of either key. */
  release(target: string, vendor: string, check?: BreakerCheck): void {
    const tiers: readonly Tier[] = check
      ? check.allowed
        ? (check.probes ?? [])
        : []
      : ["deployment", "vendor"];
    if (tiers.includes("deployment")) this.deployment.release(target);
    if (tiers.includes("vendor")) this.vendor.release(vendor);
  }

  recordSuccess(target: string, vendor: string): void {
    this.deployment.recordSuccess(target);
    this.vendor.recordSuccess(vendor);
  }

  /**
   * Routes a failure by its verdict's breaker signal; the target is the source in both tiers. An
   * `ignore` (a caller's own mistake) says nothing about health: it gives back any running probe.
   */
  recordFailure(target: string, vendor: string, verdict: BreakerVerdict): void {
    const signal = verdict.breaker;
    switch (signal.kind) {
      case "ignore":
        this.release(target, vendor);
        return;
      case "deployment":
        this.deployment.recordFailure(target, target);
        return;
      case "vendor":
        this.deployment.recordFailure(target, target);
        this.vendor.recordFailure(vendor, target);
        return;
      case "openFor":
        this.deployment.openFor(target, signal.ms);
        return;
    }
  }

  /** Both tiers' counters (each sample names its tier). */
  metrics(): BreakerMetrics {
    return { at: Date.now(), samples: [...this.deployment.samples(), ...this.vendor.samples()] };
  }
}
