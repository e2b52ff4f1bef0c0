/**
 * Redis Cluster hash slot of a key: CRC16 (XMODEM: polynomial 0x1021, initial 0) of the key's UTF-8
 * bytes, or of its hash tag (the bytes between the first "{" and the next "}", when not empty), mod 16384.
 * Cluster adapters use it to group a round's commands by node.
 */

const TABLE = buildTable();

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
}

/** CRC16/XMODEM of some bytes. */
export function crc16(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ bytes[i]!) & 0xff]!;
  return crc;
}

const OPEN = 0x7b; // "{"
const CLOSE = 0x7d; // "}"

/** The cluster slot (0..16383) that serves `key`. */
export function keySlot(key: string): number {
  const bytes = new TextEncoder().encode(key);
  const open = bytes.indexOf(OPEN);
  if (open >= 0) {
    const close = bytes.indexOf(CLOSE, open + 1);
    if (close > open + 1) return crc16(bytes, open + 1, close) % 16384;
  }
  return crc16(bytes) % 16384;
}
