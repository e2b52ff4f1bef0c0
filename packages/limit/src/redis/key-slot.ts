/// <reference path="./cluster-key-slot.d.ts" />
import calculateSlot from "cluster-key-slot";

/**
 * The Redis Cluster slot (0..16383) that serves `key`: CRC16 of its hash tag (the text between the
 * first "{" and the next "}", when not empty) or of the whole key. Cluster adapters group a round's
 * commands by it. The `cluster-key-slot` package both Redis clients use, so the slots always agree.
 */
export function keySlot(key: string): number {
  return calculateSlot(key);
}
