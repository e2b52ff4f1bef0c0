import { describe, expect, it } from "vitest";
import { keySlot } from "../../src/store-kit.js";

// A reference CRC16/XMODEM over UTF-8 bytes, to check the package against the Redis Cluster definition.
function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
const slotOf = (text: string) => crc16(new TextEncoder().encode(text)) % 16384;

describe("keySlot", () => {
  it("is CRC16/XMODEM mod 16384 (the Redis Cluster test vector)", () => {
    expect(crc16(new TextEncoder().encode("123456789"))).toBe(0x31c3);
    expect(keySlot("123456789")).toBe(0x31c3 % 16384);
    expect(keySlot("foo")).toBe(12182);
    expect(keySlot("bar")).toBe(5061);
  });
  it("hashes only the first non-empty hash tag", () => {
    expect(keySlot("{user1000}.following")).toBe(keySlot("{user1000}.followers"));
    expect(keySlot("rl2:{svc:sub}:0123")).toBe(keySlot("cc2:{svc:sub}:5"));
    expect(keySlot("foo{{bar}}zap")).toBe(keySlot("{bar"));
    expect(keySlot("rl2:{svc:sub}:0123")).toBe(slotOf("svc:sub"));
  });
  // An empty first tag ("a{}{b}") is where the clients' package and the server differ; the store's key
  // layout never writes one (service and subject tags are never empty).
  it("hashes a key without a tag whole", () => {
    expect(keySlot("rl2:plain")).toBe(slotOf("rl2:plain"));
    expect(keySlot("open{only")).toBe(slotOf("open{only"));
  });
  it("hashes UTF-8 bytes", () => {
    expect(keySlot("{é}")).toBe(crc16(new Uint8Array([0xc3, 0xa9])) % 16384);
    expect(keySlot("{日本}:x")).toBe(slotOf("日本"));
  });
});
