import { cpus, totalmem } from "node:os";
import type { Machine } from "./types.js";

export function describeMachine(): Machine {
  const list = cpus();
  return {
    cpu: (list[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim(),
    cores: list.length,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    memGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  };
}

/** One line for the README and the console. */
export function machineLine(m: Machine): string {
  return `${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, Node ${m.node} (${m.platform}/${m.arch})`;
}
