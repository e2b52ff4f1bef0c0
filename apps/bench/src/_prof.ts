import { Limiter } from "@resil/limit";
const N = 200000;
const keys = Array.from({ length: N }, (_, i) => `ip:${i}`);
const l = new Limiter({ podId: "p" });
l.setFamily("ip:", { requestsPerSecond: 1000000000 });
let a = 0;
const t0 = process.hrtime.bigint();
for (const k of keys) if (l.tryAdmit(k)) a++;
console.log("ns", Number(process.hrtime.bigint() - t0) / N, a);
