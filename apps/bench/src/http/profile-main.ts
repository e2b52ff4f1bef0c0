// Dev tool (not a case): one HTTP variant and scenario, server child under --cpu-prof, Redis commandstats.
// usage: node --import tsx profile-main.ts <variant> <keys> <deny 0|1> <seconds> [profDir]
// (the server loads resil's dist/, or src/ when this is started with --conditions=source)
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { childFlags } from "../built.js";
import { privateRedis } from "../redis.js";
import { pin } from "./children.js";
import { httpKeys } from "./keys.js";
import { buildRequest, runLoad } from "./raw-client.js";

const here = dirname(fileURLToPath(import.meta.url));
const [variant, keysArg, denyArg, secondsArg, profDir] = process.argv.slice(2);
const keys = Number(keysArg);
const deny = denyArg === "1";
const seconds = Number(secondsArg ?? 3);
const redis = await privateRedis();
if (typeof redis === "string") throw new Error(redis);
const admin = new Redis(redis.port, "127.0.0.1");
const args = childFlags();
// PROF_FLAGS="--trace-gc ..." adds node flags to the server child (they are not allowed in NODE_OPTIONS)
if (process.env.PROF_FLAGS) args.unshift(...process.env.PROF_FLAGS.split(" "));
if (profDir) args.push("--cpu-prof", `--cpu-prof-dir=${profDir}`);
const proc = spawn(process.execPath, [...args, `${here}/server-main.ts`, variant!, String(redis.port)], {
  cwd: here,
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
let nextId = 1;
const waiting = new Map<number, (a: Record<string, unknown>) => void>();
proc.on("message", (a: { id: number }) => {
  waiting.get(a.id)?.(a);
  waiting.delete(a.id);
});
const ask = (body: Record<string, unknown>) =>
  new Promise<Record<string, unknown>>((r) => {
    const id = nextId++;
    waiting.set(id, r);
    proc.send({ ...body, id });
  });
// as in the case: the server alone on CPU 0; this process (the load), Redis on CPU 1
if (process.env.PROF_PIN !== "0") {
  pin(proc.pid!, 0);
  pin(process.pid, 1);
  if (redis.pid !== undefined) pin(redis.pid, 1);
}
const ready = await new Promise<Record<string, unknown>>((r) => waiting.set(0, r));
const port = ready.port as number;
await ask({ op: "configure", scenario: { keys, deny, tag: `p${process.pid}` } });
const requests = httpKeys(keys, deny).map((k) => buildRequest("127.0.0.1", k));
const warm = await runLoad("127.0.0.1", port, requests, 50, 0.4);
// PROF_IDLE_S=70: every key comes back after its idle credit lapsed (most also after they were forgotten)
const idleS = Number(process.env.PROF_IDLE_S ?? 0);
if (idleS > 0) await new Promise((r) => setTimeout(r, idleS * 1000));
await admin.config("RESETSTAT");
const st0 = (await ask({ op: "stats" })).stats as Record<string, number> | null;
const cpu0 = (await ask({ op: "cpu" })).cpuUs as number;
// PROF_DUTY=on,off (seconds): load in bursts with pauses, so each key comes back later (as in the case,
// where a block's servers take turns); the figures are over the bursts, the CPU over the whole time
const duty = process.env.PROF_DUTY?.split(",").map(Number);
let r = await runLoad(
  "127.0.0.1",
  port,
  requests,
  50,
  duty ? duty[0]! : seconds,
  idleS > 0 || duty ? warm.next : 0,
);
for (let spent = duty?.[0] ?? seconds; duty && spent < seconds; spent += duty[0]!) {
  await new Promise((resolve) => setTimeout(resolve, duty[1]! * 1000));
  const more = await runLoad("127.0.0.1", port, requests, 50, duty[0]!, r.next);
  r = {
    ...more,
    requests: r.requests + more.requests,
    seconds: r.seconds + more.seconds,
    non2xx: r.non2xx + more.non2xx,
  };
}
const cpu1 = (await ask({ op: "cpu" })).cpuUs as number;
const st1 = (await ask({ op: "stats" })).stats as Record<string, number> | null;
if (st0 && st1) {
  const d: Record<string, string> = {};
  for (const k of Object.keys(st1))
    if (st1[k]! - st0[k]! !== 0) d[k] = ((st1[k]! - st0[k]!) / r.requests).toPrecision(3);
  console.log("limiter per request:", JSON.stringify(d));
}
const stats = await admin.info("commandstats");
const info = await admin.info("stats");
const cpuInfo = await admin.info("cpu");
console.log(
  `${variant} ${keys} keys deny=${deny}: ${(r.requests / r.seconds).toFixed(0)} req/s, p99 ${r.p99Ms.toFixed(1)} ms, ${((cpu1 - cpu0) / r.requests).toFixed(1)} µs CPU/req, non2xx ${r.non2xx}`,
);
let total = 0;
for (const line of stats.split("\n")) {
  const m = /cmdstat_(\w+):calls=(\d+),usec=(\d+)/.exec(line);
  if (m) {
    total += Number(m[2]);
    console.log(
      `  ${m[1]}: ${(Number(m[2]) / r.requests).toFixed(3)} /req, ${(Number(m[3]) / r.requests).toFixed(2)} µs/req`,
    );
  }
}
console.log(`  total ${(total / r.requests).toFixed(2)} commands/req`);
console.log(
  cpuInfo
    .split("\n")
    .filter((l) => /used_cpu_(sys|user):/.test(l))
    .join(" "),
);
await ask({ op: "stop" }).catch(() => undefined);
admin.disconnect();
await redis.stop();
const net = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)?.[1] ?? 0);
console.log(
  `  Redis net in ${(net("total_net_input_bytes") / r.requests).toFixed(0)} B/req, out ${(net("total_net_output_bytes") / r.requests).toFixed(0)} B/req`,
);
