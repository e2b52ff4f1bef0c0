import { Limiter, MemoryStore, systemClock } from "@resil/limit";

const store = new MemoryStore(systemClock);
const limiter = new Limiter({ service: "probe" }, store);
await limiter.start();
const N = 100_000;
const subs: string[] = [];
for (let i = 0; i < N; i++) subs.push(i % 10 ? `k:d${i}` : `k:a${i}`);
for (const s of subs)
  limiter.setPolicy(
    s,
    s.startsWith("k:d")
      ? { algorithm: "fixed_window", requestsPerHour: 1 }
      : { algorithm: "sliding_window", requestsPerMinute: 2e9, localAllowance: 0.8 },
  );
for (let p = 0; p < 3; p++)
  for (let i = 0; i < N; i += 2048) await Promise.all(subs.slice(i, i + 2048).map((k) => limiter.check(k)));
for (const phase of ["idle", "load"]) {
  const c0 = process.cpuUsage();
  const r0 = store.rounds;
  const t0 = Date.now();
  let n = 0,
    undec = 0;
  while (Date.now() - t0 < 2000) {
    if (phase === "load")
      for (let j = 0; j < 2000; j++) {
        const d = limiter.tryCheck(subs[n++ % N]!);
        if (d === undefined) {
          undec++;
          await limiter.check(subs[(n - 1) % N]!);
        }
      }
    await new Promise((r) => setTimeout(r, 1));
  }
  const c = process.cpuUsage(c0);
  console.log(
    phase,
    "cpu ms",
    Math.round((c.user + c.system) / 1000),
    "rounds",
    store.rounds - r0,
    "reqs",
    n,
    "undecided",
    undec,
    "denyLocal",
    limiter.outcomeCount("denyLocal"),
    "denySync",
    limiter.outcomeCount("denySync"),
    "allowSync",
    limiter.outcomeCount("allowSync"),
  );
}
await limiter.shutdown();
