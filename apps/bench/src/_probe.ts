import { Limiter, MemoryStore, systemClock } from "@resil/limit";
import { RateLimiterMemory } from "rate-limiter-flexible";

const N = Number(process.argv[2] ?? 100000);
const mode = process.argv[3] ?? "local";
const keys = Array.from({ length: N }, (_, i) => `k${i}`);
const HUGE = 2e9;
const l =
  mode === "local" ? new Limiter({ podId: "p" }) : new Limiter({ podId: "p" }, new MemoryStore(systemClock));
await l.start();
l.setFamily("k", { requestsPerSecond: HUGE, localAllowance: 0.8, cacheTtlMs: 500 });
const rlf = new RateLimiterMemory({ points: HUGE, duration: 1 });
const imm = () => new Promise((r) => setImmediate(r));
async function walk(fn: (k: string) => unknown, ops: number) {
  let idx = 0;
  const t0 = process.hrtime.bigint();
  for (let done = 0; done < ops; ) {
    const end = Math.min(ops, done + 20000);
    for (; done < end; done++) {
      fn(keys[idx]!);
      idx += 7;
      if (idx >= N) idx -= N;
    }
    await imm();
  }
  return Number(process.hrtime.bigint() - t0) / ops;
}
let und = 0;
const ours = (k: string) => {
  const r = l.tryAdmit(k);
  if (r === undefined) {
    und++;
    void l.check(k);
  }
};
console.log("first pass ours ns", (await walk(ours, N)).toFixed(0), "undecided", und);
und = 0;
console.log("first pass rlf ns", (await walk((k) => rlf.consume(k), N)).toFixed(0));
for (let i = 0; i < 3; i++) {
  console.log("ours ns", (await walk(ours, Math.max(N, 2e6))).toFixed(0), "undecided", und);
  und = 0;
  console.log("rlf ns", (await walk((k) => rlf.consume(k), Math.max(N, 2e6))).toFixed(0));
}
const cpu0 = process.cpuUsage();
const w0 = Date.now();
await new Promise((r) => setTimeout(r, 3000));
const cpu = process.cpuUsage(cpu0);
console.log("idle cpu %", ((cpu.user + cpu.system) / 10 / (Date.now() - w0)).toFixed(2), "size", l.size);
await l.shutdown();
