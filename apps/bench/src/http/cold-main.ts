// Dev tool (not a case): the limiting part of an admitted request alone, in one process, with the CPU's
// caches cold: before each request a buffer of `scribble` bytes is written (the rest of a server's work
// evicts the key's lines the same way). Ours is the node:http middleware over a Limiter without a store,
// rate-limiter-flexible memory the same handler as the http case's; neither writes to a socket.
// usage (from apps/bench/src/http): node --import tsx cold-main.ts ours|rlf <keys> [scribble bytes]
import { Limiter } from "@resil/limit";
import { nodeRateLimit } from "@resil/middleware";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { ADMIT_LIMIT, httpKeys } from "./keys.js";
import { ADMIT } from "./ours.js";

const [which, keysArg, scribbleArg] = process.argv.slice(2);
const keys = httpKeys(Number(keysArg), false);
const lines = new Float64Array(Number(scribbleArg ?? 262_144) / 8);

/** Writes one double per 64-byte line of the buffer. */
function scribble(): number {
  let sum = 0;
  for (let i = 0; i < lines.length; i += 8) {
    lines[i]! += 1;
    sum += lines[i]!;
  }
  return sum;
}

/** The part of a response the handlers write to. */
class Response {
  readonly headers: string[] = [];
  headersSent = false;
  statusCode = 200;
  setHeader(name: string, value: string): void {
    this.headers.push(name, value);
  }
  writeHead(): void {}
  end(_body?: string): void {}
  once(): void {}
}

async function ours(): Promise<(key: string, res: Response) => Promise<void>> {
  const limiter = new Limiter({ service: "cold" });
  await limiter.start();
  limiter.setFamily("k:a", ADMIT);
  for (let pass = 0; pass < 3; pass++) for (const k of keys) await limiter.check(`k:${k}`);
  const limit = nodeRateLimit({
    limiter,
    family: "k:",
    key: (req) => (req as unknown as { key: string }).key,
  });
  return (key, res) =>
    new Promise<void>((resolve) =>
      limit({ key } as never, res as never, () => {
        res.end("ok");
        resolve();
      }),
    );
}

async function rlf(): Promise<(key: string, res: Response) => Promise<void>> {
  const admit = new RateLimiterMemory({ points: ADMIT_LIMIT, duration: 60 });
  for (const k of keys) await admit.consume(k);
  return (key, res) =>
    admit.consume(key).then((r) => {
      res.setHeader("x-ratelimit-limit", String(ADMIT_LIMIT));
      res.setHeader("x-ratelimit-remaining", String(r.remainingPoints));
      res.setHeader("x-ratelimit-reset", String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)));
      res.end("ok");
    });
}

const handle = which === "ours" ? await ours() : await rlf();
let next = 0;
let sink = 0;
/** Mean ns of `n` requests on the next keys in walk order, the scribble not timed. */
async function round(n: number): Promise<number> {
  let ns = 0n;
  for (let j = 0; j < n; j++) {
    sink += scribble();
    const key = keys[next++ % keys.length]!;
    const t0 = process.hrtime.bigint();
    await handle(key, new Response());
    ns += process.hrtime.bigint() - t0;
  }
  return Number(ns) / n;
}
await round(50_000);
const rounds: string[] = [];
for (let r = 0; r < 6; r++) rounds.push((await round(50_000)).toFixed(0));
console.log(
  `${which} ${keys.length} keys, scribble ${lines.byteLength} B: ns/request ${rounds.join(" ")}${sink < 0 ? "!" : ""}`,
);
process.exit(0);
