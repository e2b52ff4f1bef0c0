import { describe, expect, it } from "vitest";
import { crc16, keySlot } from "../../src/index.js";

describe("keySlot", () => {
  it("is CRC16/XMODEM mod 16384 (the Redis Cluster test vector)", () => {
    expect(crc16(new TextEncoder().encode("123456789"))).toBe(0x31c3);
    expect(keySlot("foo")).toBe(12182);
    expect(keySlot("bar")).toBe(5061);
  });
  it("hashes only the first non-empty hash tag", () => {
    expect(keySlot("{user1000}.following")).toBe(keySlot("{user1000}.followers"));
    expect(keySlot("rl2:{svc:sub}:0123")).toBe(keySlot("cc2:{svc:sub}:5"));
    expect(keySlot("foo{}{bar}")).toBe(crc16(new TextEncoder().encode("foo{}{bar}")) % 16384);
    expect(keySlot("foo{{bar}}zap")).toBe(keySlot("{bar"));
  });
  it("hashes UTF-8 bytes", () => {
    expect(keySlot("{é}")).toBe(crc16(new Uint8Array([0xc3, 0xa9])) % 16384);
  });
});
