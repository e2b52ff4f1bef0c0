// TEMPORARY, delete at merge: preloaded into the README examples' processes to give Limiter a
// first-sight `setFamily` until @resil/limit has its own (see with-families.ts).
import { Limiter } from "@resil/limit";
import { shimFamilies } from "./with-families.js";

if (typeof (Limiter.prototype as { setFamily?: unknown }).setFamily !== "function") {
  const proto = Limiter.prototype as unknown as Record<string, unknown>;
  proto.setFamily = function setFamily(this: Limiter, ...args: unknown[]) {
    // the first call patches this instance (its own methods then shadow the prototype's)
    const patched = shimFamilies(this) as unknown as { setFamily(...a: unknown[]): void };
    patched.setFamily(...args);
  };
}
