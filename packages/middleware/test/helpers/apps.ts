// One small app per framework with the same routes, each behind a middleware built from the same options.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import express from "express";
import fastify, { type FastifyRequest } from "fastify";
import { Hono } from "hono";
import { expressRateLimit } from "../../src/express.js";
import { fastifyRateLimit } from "../../src/fastify.js";
import { honoRateLimit } from "../../src/hono.js";
import { nodeRateLimit, type RateLimitOptions } from "../../src/index.js";

export const FRAMEWORKS = ["node", "express", "fastify", "hono"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The shared options, with key / skip / cost given as header names and paths (each framework reads them its own way). */
export interface AppOptions extends Omit<RateLimitOptions<unknown>, "key" | "skip" | "cost"> {
  /** Key = this request header. */
  keyHeader?: string;
  /** Skip requests to this path. */
  skipPath?: string;
  /** Cost = this request header as a number. */
  costHeader?: string;
}

export interface RunningApp {
  url: string;
  /** Handler calls that started, by path. */
  started: Map<string, number>;
  close(): Promise<void>;
}

/** How long /slow waits before it answers (the abort test ends the request long before). */
const SLOW_MS = 3000;

// The per-framework request views the shared options are turned into.
type Getters<Req> = { header(req: Req, name: string): string | undefined; path(req: Req): string };

function optionsFor<Req>(o: AppOptions, g: Getters<Req>): RateLimitOptions<Req> {
  const { keyHeader, skipPath, costHeader, ...rest } = o;
  return {
    ...rest,
    key: keyHeader === undefined ? undefined : (req) => g.header(req, keyHeader) ?? "none",
    skip: skipPath === undefined ? undefined : (req) => g.path(req) === skipPath,
    cost: costHeader === undefined ? undefined : (req) => Number(g.header(req, costHeader) ?? 1),
  };
}

const nodeGetters: Getters<IncomingMessage> = {
  header: (req, name) => req.headers[name] as string | undefined,
  path: (req) => (req.url ?? "/").split("?")[0]!,
};

function count(started: Map<string, number>, path: string): void {
  started.set(path, (started.get(path) ?? 0) + 1);
}

async function listenNode(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeNode(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Starts `framework`'s app on 127.0.0.1 with routes /ok, /health, /slow (3 s), /boom (throws). */
export async function startApp(framework: Framework, o: AppOptions): Promise<RunningApp> {
  const started = new Map<string, number>();
  const wait = () => new Promise((resolve) => setTimeout(resolve, SLOW_MS).unref());
  switch (framework) {
    case "node": {
      const limit = nodeRateLimit(optionsFor(o, nodeGetters));
      const server = createServer(
        limit.wrap(async (req, res) => {
          const path = nodeGetters.path(req);
          count(started, path);
          if (path === "/boom") throw new Error("boom");
          if (path === "/slow") await wait();
          res.end("ok");
        }),
      );
      return { url: await listenNode(server), started, close: () => closeNode(server) };
    }
    case "express": {
      const app = express();
      app.use(expressRateLimit(optionsFor(o, { header: (req, n) => req.get(n), path: (req) => req.path })));
      app.get("/boom", () => {
        count(started, "/boom");
        throw new Error("boom");
      });
      app.get("/slow", async (_req, res) => {
        count(started, "/slow");
        await wait();
        res.send("ok");
      });
      app.get(/.*/, (req, res) => {
        count(started, req.path);
        res.send("ok");
      });
      const server = createServer(app);
      return { url: await listenNode(server), started, close: () => closeNode(server) };
    }
    case "fastify": {
      const app = fastify();
      const header = (req: FastifyRequest, n: string) => req.headers[n] as string | undefined;
      app.addHook(
        "onRequest",
        fastifyRateLimit(optionsFor(o, { header, path: (req) => req.url.split("?")[0]! })),
      );
      app.get("/boom", async () => {
        count(started, "/boom");
        throw new Error("boom");
      });
      app.get("/slow", async () => {
        count(started, "/slow");
        await wait();
        return "ok";
      });
      app.get("/*", async (req) => {
        count(started, req.url);
        return "ok";
      });
      await app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = app.server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}`,
        started,
        close: async () => {
          app.server.closeAllConnections();
          await app.close();
        },
      };
    }
    case "hono": {
      const app = new Hono();
      app.onError((_error, c) => c.text("error", 500));
      app.use(honoRateLimit(optionsFor(o, { header: (c, n) => c.req.header(n), path: (c) => c.req.path })));
      app.get("/boom", () => {
        count(started, "/boom");
        throw new Error("boom");
      });
      app.get("/slow", async (c) => {
        count(started, "/slow");
        await wait();
        return c.text("ok");
      });
      app.get("*", (c) => {
        count(started, c.req.path);
        return c.text("ok");
      });
      const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
      await new Promise<void>((resolve) =>
        server.listening ? resolve() : server.once("listening", resolve),
      );
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        started,
        close: () => closeNode(server),
      };
    }
  }
}
