// The node's process: JSON-RPC over HTTP on its port and PubSub over WebSocket on port+1 (web3.js's
// default for a URL without `wsEndpoint`) and on the HTTP port's upgrade too. The local stack runs it
// detached (launcher.ts); by hand: `SOLANA_DIR=.local/solana npx tsx deploy/local/solana/server.ts`.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { pathToFileURL } from "node:url";
import { type WebSocket, WebSocketServer } from "ws";
import { Chain } from "./chain.ts";
import { RpcError } from "./errors.ts";
import { genesis } from "./genesis.ts";
import { methods } from "./methods.ts";
import { createStore } from "./store.ts";
import { createSubscriptions } from "./subscriptions.ts";

export interface NodeOptions {
  dir: string;
  port: number;
  host?: string;
  slotMs: number;
  finalityLag: number;
}

/** A request body larger than this is refused (a real node's limit is about the same). */
const MAX_BODY = 1 << 20;

type Request = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };

function answer(
  table: Record<string, (p: unknown[]) => unknown>,
  req: Request,
  extra?: (m: string, p: unknown[]) => unknown,
) {
  const id = req.id ?? null;
  try {
    if (typeof req.method !== "string") throw new RpcError(-32600, "Invalid request");
    const params = Array.isArray(req.params) ? req.params : [];
    const method = table[req.method];
    const result = method ? method(params) : extra ? extra(req.method, params) : undefined;
    if (!method && !extra) throw new RpcError(-32601, "Method not found");
    return { jsonrpc: "2.0", result, id };
  } catch (err) {
    if (err instanceof RpcError)
      return {
        jsonrpc: "2.0",
        error: { code: err.code, message: err.message, ...(err.data ? { data: err.data } : {}) },
        id,
      };
    return { jsonrpc: "2.0", error: { code: -32603, message: (err as Error).message }, id };
  }
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new RpcError(-32600, "request too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startNode(opts: NodeOptions) {
  const host = opts.host ?? "127.0.0.1";
  const chain = Chain.open(createStore(opts.dir), opts.finalityLag);
  const keys = genesis(chain, opts.dir);
  const table = methods(chain, keys.faucet);
  const subscriptions = createSubscriptions(chain);
  const ticker = setInterval(() => chain.tick(), opts.slotMs);

  const http: Server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { "content-type": "application/json" }).end('{"error":"POST JSON-RPC"}');
      return;
    }
    let reply: unknown;
    try {
      const parsed = JSON.parse(await body(req)) as Request | Request[];
      reply = Array.isArray(parsed) ? parsed.map((r) => answer(table, r)) : answer(table, parsed);
    } catch (err) {
      const message = err instanceof RpcError ? err.message : "Parse error";
      reply = {
        jsonrpc: "2.0",
        error: { code: err instanceof RpcError ? err.code : -32700, message },
        id: null,
      };
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
  });

  const onSocket = (socket: WebSocket) => {
    socket.on("message", (data) => {
      let req: Request;
      try {
        req = JSON.parse(String(data)) as Request;
      } catch {
        socket.send(
          JSON.stringify({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null }),
        );
        return;
      }
      if (req.id === undefined) return; // a notification, such as web3.js's keep-alive ping
      socket.send(JSON.stringify(answer(table, req, (m, p) => subscriptions.handle(socket, m, p))));
    });
    socket.on("close", () => subscriptions.close(socket));
  };
  const upgraded = new WebSocketServer({ noServer: true });
  upgraded.on("connection", onSocket);
  http.on("upgrade", (req, socket, head) => upgraded.handleUpgrade(req, socket, head, (ws) => onSocket(ws)));
  const pubsub = new WebSocketServer({ port: opts.port + 1, host });
  pubsub.on("connection", onSocket);

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(opts.port, host, resolve);
  });
  await new Promise<void>((resolve, reject) => {
    if (pubsub.address()) resolve();
    pubsub.once("listening", resolve);
    pubsub.once("error", reject);
  });

  return {
    chain,
    keys,
    rpcUrl: `http://${host}:${opts.port}`,
    wsUrl: `ws://${host}:${opts.port + 1}`,
    async stop() {
      clearInterval(ticker);
      for (const c of pubsub.clients) c.terminate();
      for (const c of upgraded.clients) c.terminate();
      await new Promise((r) => pubsub.close(r));
      const closed = new Promise((r) => http.close(r));
      http.closeAllConnections();
      await closed;
      chain.persist();
    },
  };
}

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dir = process.env.SOLANA_DIR;
  if (!dir) throw new Error("SOLANA_DIR is required");
  const node = await startNode({
    dir,
    port: positive("SOLANA_PORT", 18899),
    slotMs: positive("SOLANA_SLOT_MS", 400),
    finalityLag: positive("SOLANA_FINALITY_LAG", 8),
  });
  console.log(`solana node on ${node.rpcUrl} (ws ${node.wsUrl}), slot ${node.chain.slot}`);
  const shutdown = async (signal: string) => {
    await node.stop();
    console.log(`solana node stopped on ${signal} at slot ${node.chain.slot}`);
    process.exit(0);
  };
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}
