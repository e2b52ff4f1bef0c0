import { describe, expect, it } from "vitest";
import { newPushId } from "../../src/cluster/rate-key-parts.js";
import { StoreRequestError } from "../../src/store/errors.js";
import { normalizeRate } from "../../src/store/request.js";
import { rate } from "./rate-request.js";

const OPTS = { finiteLease: true };
const whole = { batch: 0, head: 0, pushId: "", pushTotal: 0 };

describe("normalizeRate", () => {
  it("keeps a request that is normal already (the limiter's own), and copies one that is not", () => {
    const normal = rate({ ...whole, hits: 3, unused: 2, want: 5, need: 1 });
    expect(normalizeRate(normal, OPTS)).toBe(normal);
    const odd = rate({ ...whole, hits: 2.7, want: -4, hitsOld: 0, tOld: 99 });
    const got = normalizeRate(odd, OPTS);
    expect(got).not.toBe(odd);
    expect(got).toMatchObject({ hits: 2, want: 0, tOld: 0, pushId: "", pushTotal: 0 });
    // the caller's request is left as it was
    expect(odd).toMatchObject({ hits: 2.7, want: -4, tOld: 99 });
    // optional fields left out read as 0 in the copy
    expect(normalizeRate(rate(), OPTS)).toMatchObject({ batch: 0, head: 0, pushId: "", pushTotal: 0 });
  });

  it("still rejects a bad field of an otherwise normal request, naming it", () => {
    expect(() => normalizeRate(rate({ ...whole, pushId: "a:b" }), OPTS)).toThrow(StoreRequestError);
    expect(() => normalizeRate(rate({ ...whole, leaseTtlMs: 0 }), OPTS)).toThrow(/leaseTtlMs/);
    expect(() => normalizeRate(rate({ ...whole, key: "" }), OPTS)).toThrow(/key/);
  });
});

describe("newPushId", () => {
  it("names each key state apart, in a form the store accepts", () => {
    const ids = Array.from({ length: 20_000 }, () => newPushId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0]!, ids[ids.length - 1]!]) {
      expect(id).toMatch(/^[0-9a-z]{11,64}$/);
      expect(normalizeRate(rate({ ...whole, pushId: id, hits: 1, pushTotal: 1 }), OPTS).pushId).toBe(id);
    }
  });
});
