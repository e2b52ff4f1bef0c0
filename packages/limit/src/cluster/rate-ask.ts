import type { AlgorithmCode, RateRequest, WindowSpec, WindowState } from "../store/types.js";

const NO_WINDOWS: WindowSpec[] = [];

/**
 * A key's rate request (docs/protocol.md#s3-2) as a replica builds it, filled in by `buildRateSend`.
 * A class, not an object literal: V8 moves a literal's allocation site to the old generation once a
 * young collection finds most of its recent objects alive, which a collection during a large round
 * does, and from then on every request of the process would be old-generation garbage.
 */
export class RateAsk implements RateRequest {
  key = "";
  alg: AlgorithmCode = 0;
  windows: WindowSpec[] = NO_WINDOWS;
  pod = "";
  hits = 0;
  hitsOld = 0;
  tOld = 0;
  unused = 0;
  want = 0;
  need = 0;
  batch = 0;
  head = 0;
  pushId = "";
  pushTotal = 0;
  seen: WindowState[] | undefined = undefined;
  allowance = 0;
  replicas = 0;
  leaseTtlMs = 0;
}
