// Dev tool (an attack of stop 41): one limiter on a private Redis, 300 family subjects at 5 a second
// (fixed window), each busy 2 s in every 9 (so they are forgotten and come back), 3 checks each every
// 100 ms; Redis paused 3 s at 10 s, killed and restarted empty at 22 s. Prints the most any subject got
// in one wall-clock second and the seconds over the limit. Before requests carried the windows a
// replica saw (`seen`), 4 runs in 5 admitted up to 8 in the second of the restart; since, 0 in 4.
// usage: node --import tsx restart-main.ts [spares 1|0]  (0: forgotten subjects' parts are not reused)
import { Limiter, RedisStore } from "@resil/limit";
import { IoRedisExec } from "@resil/store-ioredis";
import { Redis } from "ioredis";
import { privateRedis } from "../redis.js";

const spares = process.argv[2] !== "0";
const srv = await privateRedis();
if (typeof srv === "string") throw new Error(srv);
const redis = new Redis(srv.port, "127.0.0.1", { maxRetriesPerRequest: 1 });
redis.on("error", () => {});
const limiter = new Limiter({ service: "attack" }, new RedisStore(new IoRedisExec(redis)));
await limiter.start();
const L = 5;
limiter.setFamily("ip:", { algorithm: "fixed_window", requestsPerSecond: L });
const internals = limiter as unknown as {
  subjects: { families: { get(p: string): { spares: { take(): unknown } } } };
};
const fam = internals.subjects.families.get("ip:");
let reused = 0;
const take = fam.spares.take.bind(fam.spares);
fam.spares.take = () => {
  if (!spares) return undefined;
  const p = take();
  if (p !== undefined) reused++;
  return p;
};
const counts = new Map<string, number>();
const t0 = Date.now();
let step = 0;
let paused = false;
let restarted = false;
let errors = 0;
while (Date.now() - t0 < 40_000 && step < 2000) {
  const el = Date.now() - t0;
  if (!paused && el > 10_000) {
    srv.pause();
    paused = true;
    setTimeout(() => srv.resume(), 3000);
  }
  if (!restarted && el > 22_000) {
    restarted = true;
    void srv.restart();
  }
  // 300 subjects; subject s is active in the 2 s out of every 9 s that its phase picks
  const checks: Promise<void>[] = [];
  for (let s = 0; s < 300; s++) {
    const phase = (Math.floor(el / 1000) + (s % 9)) % 9;
    if (phase >= 2) continue;
    const subject = `ip:${s}`;
    for (let i = 0; i < 3; i++)
      checks.push(
        limiter.check(subject).then(
          (d) => {
            if (d.kind !== "allow") return;
            const k = `${subject}@${Math.floor(Date.now() / 1000)}`;
            counts.set(k, (counts.get(k) ?? 0) + 1);
          },
          () => {
            errors++;
          },
        ),
      );
  }
  await Promise.all(checks);
  step++;
  await new Promise((r) => setTimeout(r, 100));
}
let max = 0;
let over = 0;
const overAt = new Map<number, number>();
for (const [k, v] of counts) {
  max = Math.max(max, v);
  if (v > L) {
    over++;
    const sec = Number(k.split("@")[1]) - Math.floor(t0 / 1000);
    overAt.set(sec, (overAt.get(sec) ?? 0) + 1);
  }
}
console.log(
  "over by second since start:",
  [...overAt]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}:${n}`)
    .join(" "),
);
console.log(
  `spares ${spares}: steps ${step}, subject-seconds ${counts.size}, max admitted in a second ${max} (limit ${L}), seconds over ${over}, reused ${reused}, errors ${errors}`,
);
await limiter.shutdown();
redis.disconnect();
await srv.stop();
