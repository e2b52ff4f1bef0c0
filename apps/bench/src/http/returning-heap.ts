// Dev tool (not a case): the heap a family subject adds when it comes back after it was forgotten,
// with and without the family's spare parts, on a virtual clock (a MemoryStore, no real time: the
// figures are the same from run to run). 100,000 subjects checked three times, idle until every one
// is forgotten, then each checked once more; heap after full GCs at each step.
// usage: node --expose-gc --import tsx returning-heap.ts [subjects=100000]
import { Limiter, ManualClock, MemoryStore } from "@resil/limit";
import { ADMIT } from "./ours.js";

const N = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --expose-gc");
const heapMiB = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

interface Internals {
  subjects: {
    rates: Map<string, unknown>;
    families: { get(prefix: string): { spares: { size: number; dropBefore(t: number): void } } | undefined };
  };
}

async function run(spares: boolean): Promise<string> {
  const clock = new ManualClock();
  const limiter = new Limiter({ podId: "heap" }, new MemoryStore(clock), clock);
  limiter.setFamily("k:a", ADMIT);
  const { subjects } = limiter as unknown as Internals;
  const family = subjects.families.get("k:a")!;
  const keys = Array.from({ length: N }, (_, i) => `k:a${i}`);
  const checkAll = async () => {
    for (let i = 0; i < N; i += 1000) await Promise.all(keys.slice(i, i + 1000).map((k) => limiter.check(k)));
  };
  for (let pass = 0; pass < 3; pass++) await checkAll();
  for (let t = 0; t < 600_000 && subjects.rates.size > 0; t += 100) {
    clock.advance(100);
    await limiter.syncNow();
  }
  // without: the parts go as they would have before spare parts (the new subjects then make their own)
  if (!spares) family.spares.dropBefore(Number.POSITIVE_INFINITY);
  const forgotten = heapMiB();
  const kept = family.spares.size;
  await checkAll();
  const back = heapMiB();
  await limiter.shutdown();
  const perSubject = ((back - forgotten) * 2 ** 20) / N;
  return `${spares ? "with" : "without"} spare parts: ${forgotten.toFixed(1)} MiB once forgotten (${kept} parts kept), ${back.toFixed(1)} MiB once back: ${perSubject.toFixed(0)} bytes per returning subject`;
}

console.log(await run(false));
console.log(await run(true));
