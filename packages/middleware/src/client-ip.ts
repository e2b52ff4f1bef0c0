/**
 * The client address a request came from, and the rate-limit key made from it: IPv4 as it is, IPv6
 * grouped by its /64 prefix (one host usually owns a whole /64, so per-address keys are free to evade).
 */

/** How many proxies in front of the server may be trusted to append to `X-Forwarded-For`. */
export type TrustProxy = number;

/**
 * The client address: with `trustProxy` 0 the socket peer; with n > 0 the address n hops back in
 * `X-Forwarded-For` + the socket peer (each trusted proxy appends the address it saw), or the leftmost
 * when the chain is shorter. `undefined` when there is no address at all.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: TrustProxy,
): string | undefined {
  if (trustProxy === 0 || forwardedFor === undefined) return socketAddress;
  const header = typeof forwardedFor === "string" ? forwardedFor : forwardedFor.join(",");
  const chain = header.split(",");
  // The socket peer (known or not) is the first trusted hop; each further hop is one entry back.
  const index = Math.max(0, chain.length - trustProxy);
  return chain[index]?.trim() || socketAddress;
}

/**
 * The key for an address: IPv4 unchanged; an IPv4-mapped IPv6 address as its IPv4; other IPv6 as the
 * first `ipv6Subnet` bits, written `hhhh:hhhh:hhhh:hhhh::/64` (zone ids dropped). Anything that does
 * not parse as IPv6 is returned as it is.
 */
export function addressKey(address: string, ipv6Subnet = 64): string {
  if (address.indexOf(":") < 0) return address;
  const groups = parseIPv6(address);
  if (groups === undefined) return address;
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    if (groups[5] === 0xffff) {
      return `${groups[6]! >> 8}.${groups[6]! & 255}.${groups[7]! >> 8}.${groups[7]! & 255}`;
    }
  }
  const bits = Math.min(128, Math.max(0, Math.floor(ipv6Subnet)));
  const out: string[] = [];
  for (let i = 0; i < 8; i++) {
    const keep = Math.min(16, Math.max(0, bits - i * 16));
    if (keep === 0) break;
    const mask = keep === 16 ? 0xffff : (0xffff << (16 - keep)) & 0xffff;
    out.push((groups[i]! & mask).toString(16));
  }
  return bits === 128 ? out.join(":") : `${out.join(":")}::/${bits}`;
}

/** The 8 groups of an IPv6 address (with `::`, an IPv4 tail, a `%zone`), or undefined. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : halves[0]!.split(":");
  const tail = halves.length === 2 ? (halves[1] === "" ? [] : halves[1]!.split(":")) : [];
  const parts = [...head, ...tail];
  const last = parts[parts.length - 1];
  const groups: number[] = [];
  const dotted = last?.includes(".") === true;
  const ipv4 = dotted ? parseIPv4(last!) : undefined;
  if (dotted && ipv4 === undefined) return undefined;
  if (ipv4 && halves.length === 2 && tail.length === 0) return undefined; // an IPv4 before "::"
  const hexCount = parts.length - (ipv4 ? 1 : 0);
  const total = hexCount + (ipv4 ? 2 : 0);
  if (halves.length === 1 ? total !== 8 : total > 7) return undefined;
  const parseGroup = (g: string) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? Number.parseInt(g, 16) : Number.NaN);
  const headGroups = (ipv4 && tail.length === 0 ? head.slice(0, -1) : head).map(parseGroup);
  const tailGroups = (ipv4 && tail.length > 0 ? tail.slice(0, -1) : tail).map(parseGroup);
  groups.push(...headGroups);
  const fill = 8 - total;
  for (let i = 0; i < fill; i++) groups.push(0);
  groups.push(...tailGroups);
  if (ipv4) groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
  if (groups.length !== 8 || groups.some(Number.isNaN)) return undefined;
  return groups;
}

function parseIPv4(s: string): number[] | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  const out = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : 256));
  return out.every((n) => n <= 255) ? out : undefined;
}
