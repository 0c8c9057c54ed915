/**
 * The baseline of gateway.bench.ts, run as its own process: a bare fastify app with the two routes
 * of the session surface and nothing else (no hooks, schemas, rate limit, Kafka or Cassandra).
 * GET /sessions/:id answers a Session-shaped object from a Map, filled at start from a JSON file
 * `{ template, ids }` (the template is a real GET response of the gateway, so both send bodies of
 * the same size); POST /sessions parses the JSON body and answers `{ id, status, expires_at }`,
 * keeping nothing.
 *
 *   node --import tsx test/bench/bare-fastify.ts <sessions.json> [port=0]
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const [file, port = "0"] = process.argv.slice(2);
if (!file) throw new Error("usage: bare-fastify.ts <sessions.json> [port]");
const { template, ids } = JSON.parse(readFileSync(file, "utf8")) as {
  template: Record<string, unknown>;
  ids: string[];
};
const TTL_SECONDS = 3600;
const sessions = new Map(ids.map((id) => [id, { ...template, id }]));

const app = Fastify({ logger: false });
app.post("/sessions", async () => ({
  id: randomUUID(),
  status: "pending",
  expires_at: Math.floor(Date.now() / 1000) + TTL_SECONDS,
}));
app.get<{ Params: { id: string } }>("/sessions/:id", async (request, reply) => {
  const session = sessions.get(request.params.id);
  if (session === undefined) return reply.code(404).send({ error: "session not found" });
  return session;
});

const address = await app.listen({ host: "127.0.0.1", port: Number(port) });
console.log(`bare listening on ${address}`);
process.once("SIGTERM", () => {
  app.close().then(() => process.exit(0));
});
