import { ALLOW_SYNC, type Decision } from "./decision.js";
import type { RateAdmissionDeps } from "./rate-admission.js";
import type { RateKeyState } from "./rate-key.js";
import type { WaitHooks } from "./sync-wait.js";

/** A rate key's wait on its sync replies, as one object (a request that waits allocates it alone). */
export class RateWait implements WaitHooks<Decision> {
  constructor(
    private readonly deps: RateAdmissionDeps,
    private readonly k: RateKeyState,
    private readonly cost: number,
  ) {}

  attempt(): Decision | undefined {
    return this.deps.admit(this.k, this.cost, ALLOW_SYNC);
  }

  kick(): void {
    void this.deps.exchange.syncAlone(this.k);
  }

  closed(): boolean {
    return this.deps.closed();
  }

  storeFailing(): boolean {
    return this.deps.env.health.failing;
  }

  // enough units came, yet spending failed: their trust or their window ended before the read
  lapsedOnArrival(): boolean {
    return this.k.unused() >= this.cost;
  }

  // an ask now reaches the store half a round trip later: worth it only if a unit frees by then
  paced(): boolean {
    return this.k.exhaustedUntil - this.deps.clock.monoMs() > this.deps.env.health.rttMs / 2;
  }
}
