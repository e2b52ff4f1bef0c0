// Dev tool (not a case): the limiting part of an admitted request alone, in one process, with the CPU's
// caches cold: before each request a buffer of `scribble` bytes is written (the rest of a server's work
// evicts the key's lines the same way). Each side is the http case's own listener (ours: the node:http
// middleware over a Limiter without a store; rate-limiter-flexible memory), given a request that holds
// only its x-key header and a response that writes nowhere.
// usage (from apps/bench/src/http): node --import tsx cold-main.ts ours|rlf <keys> [scribble bytes]
import type { IncomingMessage, ServerResponse } from "node:http";
import { httpKeys } from "./keys.js";
import { type Listener, oursNode } from "./ours.js";
import { rlf } from "./peers.js";

const [which, keysArg, scribbleArg] = process.argv.slice(2);
const scenario = { keys: Number(keysArg), deny: false, tag: `cold-${process.pid}` };
const keys = httpKeys(scenario.keys, false);
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

/** The part of a response the listeners use; `end` settles the request. */
class Response {
  readonly headers: string[] = [];
  headersSent = false;
  statusCode = 200;
  constructor(readonly ended: () => void) {}
  setHeader(name: string, value: string): void {
    this.headers.push(name, value);
  }
  writeHead(): void {}
  end(): void {
    this.ended();
  }
  once(): void {}
}

const [listener] = which === "ours" ? await oursNode(scenario, "local") : await rlf(scenario);
const handle: Listener = listener;
let next = 0;
let sink = 0;
/** Mean ns of `n` requests on the next keys in walk order, the scribble not timed. */
async function round(n: number): Promise<number> {
  let ns = 0n;
  for (let j = 0; j < n; j++) {
    sink += scribble();
    const req = { headers: { "x-key": keys[next++ % keys.length]! } } as unknown as IncomingMessage;
    const t0 = process.hrtime.bigint();
    await new Promise<void>((ended) => handle(req, new Response(ended) as unknown as ServerResponse));
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
