import { createHash } from "node:crypto";
import type { AlgorithmCode, WindowSpec } from "../store/types.js";

/**
 * Store key layout (see docs/protocol.md#s3-4). Every key of one subject shares the hash tag `{<service>:<subject>}`,
 * so each store script touches one Redis Cluster slot. Names that could break the tag (braces,
 * control or non-ASCII characters, a colon in the service, very long) travel as a fixed-length digest.
 */

/** Longest name used verbatim in a key; longer ones become a digest. */
export const MAX_VERBATIM_NAME = 128;

// Verbatim names are printable ASCII without braces and never start with "=", the digest marker.
const VERBATIM_SUBJECT = /^[\x21-\x3c\x3e-\x7a|~][\x21-\x7a|~]*$/;
const VERBATIM_SERVICE = /^[\x21-\x39\x3b\x3c\x3e-\x7a|~][\x21-\x39\x3b-\x7a|~]*$/;

function digest(name: string): string {
  // UTF-16 code units, not UTF-8: lone surrogates would all encode as U+FFFD and collide.
  return `=${createHash("sha256").update(name, "utf16le").digest("base64url")}`;
}

/** A subject as it appears inside the hash tag: verbatim when plain and short, else `=<sha256 base64url>`. */
export function subjectTag(subject: string): string {
  return subject.length <= MAX_VERBATIM_NAME && VERBATIM_SUBJECT.test(subject) ? subject : digest(subject);
}

/** A service name as it appears in keys: like a subject, and never with a colon (the tag's separator). */
export function serviceTag(service: string): string {
  return service.length <= MAX_VERBATIM_NAME && VERBATIM_SERVICE.test(service) ? service : digest(service);
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const U64 = 0xffffffffffffffffn;

/** 64-bit FNV-1a over the algorithm code and each window's limit, windowMs and burst (8 LE bytes each). */
export function configHash(alg: AlgorithmCode, windows: readonly WindowSpec[]): string {
  let h = FNV_OFFSET;
  const byte = (b: number) => {
    h = ((h ^ BigInt(b & 0xff)) * FNV_PRIME) & U64;
  };
  const u64 = (n: number) => {
    let v = BigInt(Math.max(0, Math.floor(n))) & U64;
    for (let i = 0; i < 8; i++) {
      byte(Number(v & 0xffn));
      v >>= 8n;
    }
  };
  byte(alg);
  for (const w of windows) {
    u64(w.limit);
    u64(w.windowMs);
    u64(w.burst);
  }
  return h.toString(16).padStart(16, "0");
}

/** Rate hash of one subject and limit: `rl2:{<service>:<subject>}:<hash16>`. */
export function rateStoreKey(service: string, subject: string, hash: string): string {
  return rateStoreKeyAt(rateKeyPrefix(service), subject, hash);
}

/** The part of every rate key of a service before the subject: `rl2:{<service>:`. */
export function rateKeyPrefix(service: string): string {
  return `rl2:{${serviceTag(service)}:`;
}

/** `rateStoreKey` with its service prefix computed once. */
export function rateStoreKeyAt(prefix: string, subject: string, hash: string): string {
  // join builds one flat string (a template literal would keep a tree of parts alive per key)
  return [prefix, subjectTag(subject), "}:", hash].join("");
}

/**
 * Concurrency hash of one subject: `cc3:{<service>:<subject>}`. Not named by the cap: reports are
 * absolute slot counts, so a new cap keeps counting the slots held (`cc2:…:<max>` started afresh).
 */
export function concurrencyStoreKey(service: string, subject: string): string {
  return `cc3:{${serviceTag(service)}:${subjectTag(subject)}}`;
}

/** Replica registry of a service: `rl2:{<service>}:pods`. */
export function registryStoreKey(service: string): string {
  return `rl2:{${serviceTag(service)}}:pods`;
}
