// Store key layout: hash tags, digests of hostile names, the config hash.

import { describe, expect, it } from "vitest";
import {
  concurrencyStoreKey,
  configHash,
  rateStoreKey,
  registryStoreKey,
  subjectTag,
} from "../../src/cluster/keys.js";

describe("store keys", () => {
  it("shares one hash tag per subject and follows the key layout of docs/protocol.md#s3-4", () => {
    expect(rateStoreKey("svc", "user-1", "00ab")).toBe("rl2:{svc:user-1}:00ab");
    expect(concurrencyStoreKey("svc", "user-1")).toBe("cc3:{svc:user-1}");
    expect(registryStoreKey("svc")).toBe("rl2:{svc}:pods");
  });

  it("digests subjects that could break the tag, with a bounded length and no collisions", () => {
    const odd = [
      "a{b}",
      "line\nbreak",
      "x".repeat(10_000),
      "\u0000\u00ff binary",
      "=looks-like-a-digest",
      "émoji 🎉",
    ];
    const tags = new Set<string>();
    for (const s of odd) {
      const tag = subjectTag(s);
      expect(tag).toMatch(/^=[A-Za-z0-9_-]{43}$/);
      tags.add(tag);
      const key = rateStoreKey("svc", s, "0".repeat(16));
      expect(key.length).toBeLessThan(100);
      expect(key.match(/\{/g)).toHaveLength(1);
    }
    expect(tags.size).toBe(odd.length);
    expect(subjectTag("plain:key/1")).toBe("plain:key/1");
  });

  it("a service with a colon cannot alias another service's subject", () => {
    expect(rateStoreKey("a:b", "c", "h")).not.toBe(rateStoreKey("a", "b:c", "h"));
  });

  it("hashes the config with 64-bit FNV-1a (16 hex digits) and changes with any limit", () => {
    const h = configHash(0, [{ limit: 10, windowMs: 1000, burst: 10 }]);
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(configHash(0, [])).toBe("af63bd4c8601b7df"); // FNV-1a of the single byte 0
    expect(configHash(0, [{ limit: 11, windowMs: 1000, burst: 11 }])).not.toBe(h);
    expect(configHash(1, [{ limit: 10, windowMs: 1000, burst: 10 }])).not.toBe(h);
  });
});
