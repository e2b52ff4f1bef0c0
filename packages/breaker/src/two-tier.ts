import { type BreakerCheck, Breakers, type TransitionEvent } from "./breakers.js";
import type { Clock } from "./clock.js";
import { BreakerConfig } from "./config.js";

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
}

/** Per-target and per-provider breakers; the provider key (provider + API host) is built by the caller. */
export class TwoTier {
  readonly deployment: Breakers;
  readonly vendor: Breakers;

  constructor(options: TwoTierOptions = {}) {
    const { clock, onTransition, sweepIntervalMs } = options;
    const shared = { clock, onTransition, sweepIntervalMs };
    this.deployment = new Breakers("deployment", options.deployment ?? BreakerConfig.deployment(), shared);
    this.vendor = new Breakers("vendor", options.vendor ?? BreakerConfig.vendor(), shared);
  }

  /** The provider tier first: its refusal wins. */
  check(target: string, vendor: string): BreakerCheck {
    const v = this.vendor.check(vendor);
    if (!v.allowed) return v;
    return this.deployment.check(target);
  }

  recordSuccess(target: string, vendor: string): void {
    this.deployment.recordSuccess(target);
    this.vendor.recordSuccess(vendor);
  }

  /** Routes a failure by its verdict's breaker signal; the target is the source in both tiers. */
  recordFailure(target: string, vendor: string, verdict: BreakerVerdict): void {
    const signal = verdict.breaker;
    switch (signal.kind) {
      case "ignore":
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
}
