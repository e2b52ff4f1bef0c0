import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, parseIPv6 } from "../src/index.js";

describe("addressKey", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:0001:0002::", "2001:db8:1:2::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["[2001:db8::1]", "2001:db8:0:0::/64"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["64:ff9b::192.0.2.1", "64:ff9b:0:0::/64"],
    ["not-an-ip", "not-an-ip"],
    ["1:2:3", "1:2:3"],
    ["1::2::3", "1::2::3"],
    ["1.2.3.4::", "1.2.3.4::"],
  ])("%s -> %s", (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it("groups by another prefix length", () => {
    expect(addressKey("2001:db8:abcd:1234::1", 48)).toBe("2001:db8:abcd::/48");
    expect(addressKey("2001:db8:abcd:1234::1", 56)).toBe("2001:db8:abcd:1200::/56");
    expect(addressKey("2001:db8:abcd:1234::1", 128)).toBe("2001:db8:abcd:1234:0:0:0:1");
  });

  it("parses an IPv4 tail and rejects junk", () => {
    expect(parseIPv6("::192.0.2.1")).toEqual([0, 0, 0, 0, 0, 0, 0xc000, 0x0201]);
    expect(parseIPv6("::1.2.3.256")).toBeUndefined();
    expect(parseIPv6("12345::")).toBeUndefined();
    expect(parseIPv6("1:2:3:4:5:6:7:8:9")).toBeUndefined();
  });
});

describe("clientAddress (trust proxy)", () => {
  it("is the socket peer by default, whatever X-Forwarded-For says", () => {
    expect(clientAddress("10.0.0.1", "1.1.1.1", 0)).toBe("10.0.0.1");
  });

  it("walks back one entry per trusted hop", () => {
    expect(clientAddress("10.0.0.1", "1.1.1.1, 2.2.2.2", 1)).toBe("2.2.2.2");
    expect(clientAddress("10.0.0.1", "1.1.1.1, 2.2.2.2", 2)).toBe("1.1.1.1");
    expect(clientAddress("10.0.0.1", "1.1.1.1, 2.2.2.2", 5)).toBe("1.1.1.1");
    expect(clientAddress("10.0.0.1", ["1.1.1.1", "2.2.2.2, 3.3.3.3"], 2)).toBe("2.2.2.2");
  });

  it("keeps the socket peer without the header or with an empty entry", () => {
    expect(clientAddress("10.0.0.1", undefined, 1)).toBe("10.0.0.1");
    expect(clientAddress("10.0.0.1", " ", 1)).toBe("10.0.0.1");
    expect(clientAddress(undefined, "1.1.1.1, 2.2.2.2", 1)).toBe("2.2.2.2");
  });
});
