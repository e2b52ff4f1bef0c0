import { describe, expect, it } from "vitest";
import { classify, failureFrom, retryAfterMs } from "../src/index.js";

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

const throwing = (key: string) =>
  Object.defineProperty({}, key, {
    get() {
      throw new Error(`getter ${key} broke`);
    },
    enumerable: true,
  });

describe("failureFrom on hostile objects never throws", () => {
  it("reads a revoked Proxy as other", () => {
    expect(failureFrom(revokedProxy())).toEqual({ kind: "other" });
  });

  it("reads an object whose getters throw as other", () => {
    for (const key of ["kind", "name", "code", "status", "response", "cause", "errors"]) {
      expect(failureFrom(throwing(key)), key).toEqual({ kind: "other" });
    }
  });

  it("still finds a status behind a hostile sibling in an error chain", () => {
    const err = { errors: [revokedProxy(), { status: 503 }] };
    expect(failureFrom(err)).toMatchObject({ kind: "status", code: 503 });
  });

  it("reads throwing headers as no hint", () => {
    const headers = {
      get: () => {
        throw new Error("headers broke");
      },
    };
    expect(classify({ kind: "status", code: 503, headers })).toMatchObject({ retryable: true });
    expect(
      classify({ kind: "status", code: 503, headers: revokedProxy() as never }).retryAfterMs,
    ).toBeUndefined();
  });
});

describe("a deeply nested Retry-After value", () => {
  it("is read as no hint rather than overflowing the stack", () => {
    let nested: unknown = "5";
    for (let i = 0; i < 100_000; i++) nested = [nested];
    expect(retryAfterMs({ "retry-after": nested as string })).toBeUndefined();
  });

  it("a cyclic list gives no hint", () => {
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(retryAfterMs({ "retry-after": cyclic as unknown as string })).toBeUndefined();
  });

  it("a repeated header is read by its first value", () => {
    expect(retryAfterMs({ "retry-after": ["5", "9"] })).toBe(5000);
  });
});
