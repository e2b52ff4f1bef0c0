import { simulate } from "/work/wt-faults/apps/sim/src/engine.js";
import { limiterBackend } from "/work/wt-faults/apps/sim/src/limiter-backend.js";
import { parseScenario } from "/work/wt-faults/apps/sim/src/scenario.js";
const [alg, n, lat, driver, jit, dur] = process.argv.slice(2);
const s = parseScenario({ replicas: Number(n), duration: Number(dur ?? 4), algorithm: alg, driver, store: { latencyMs: Number(lat), jitterMs: Number(jit ?? Number(lat) / 2) } });
const r = await simulate(s, limiterBackend);
console.log(Array.from(r.admitted), r.outcomes);
console.log("dropped", (globalThis as any).dropped);
