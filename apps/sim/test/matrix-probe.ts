import { simulate } from "../src/engine.js";
import { limiterBackend } from "../src/limiter-backend.js";
import { buildReport } from "../src/report.js";
import { parseScenario } from "../src/scenario.js";

const driver = (process.argv[2] ?? "loop") as "loop" | "steps";
const dur = Number(process.argv[3] ?? 4);
const t0 = Date.now();
for (const algorithm of ["fixed", "sliding", "token"] as const)
  for (const replicas of [1, 4, 16])
    for (const latency of [0, 5, 10, 20, 50, 100]) {
      const s = parseScenario({ replicas, duration: dur, algorithm, driver, store: { latencyMs: latency, jitterMs: latency / 2 } });
      const a = Date.now();
      const r = buildReport(await simulate(s, limiterBackend)).summary;
      console.log(algorithm, replicas, latency, `util=${(r.utilisation * 100).toFixed(1)}`, `over=${r.windowsOver}/${r.windowsChecked}`, `max+${r.maxOverAdmission.units}`, `overruns=${r.overruns}`, `${Date.now() - a}ms`);
    }
console.log("total", Date.now() - t0);
