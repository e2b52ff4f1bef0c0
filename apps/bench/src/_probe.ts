import { Limiter, MemoryStore, ManualClock } from "@resil/limit";
const N = Number(process.argv[2] ?? 100000);
const keys = Array.from({ length: N }, (_, i) => `ip:${i}`);
{
  const l = new Limiter({ podId: "p" });
  l.setFamily("ip:", { requestsPerSecond: 1000000000 });
  const t0 = process.hrtime.bigint();
  let a = 0;
  for (const k of keys) if (l.tryAdmit(k)) a++;
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log("local-only new subject tryAdmit ns", ns.toFixed(0), a);
  const t1 = process.hrtime.bigint();
  for (const k of keys) if (l.tryAdmit(k)) a++;
  console.log("local-only known subject tryAdmit ns", (Number(process.hrtime.bigint() - t1) / N).toFixed(0));
  global.gc?.(); console.log("heap MB", (process.memoryUsage().heapUsed / 1e6).toFixed(0));
}
{
  const clock = new ManualClock();
  const l = new Limiter({ podId: "p" }, new MemoryStore(clock), clock);
  l.setFamily("ip:", { requestsPerSecond: 1000000000 });
  const t0 = process.hrtime.bigint();
  let a = 0;
  for (const k of keys) { const d = l.tryCheck(k) ?? (await l.check(k)); if (d.kind === "allow") a++; }
  console.log("memstore new subject check ns", (Number(process.hrtime.bigint() - t0) / N).toFixed(0), a);
}
