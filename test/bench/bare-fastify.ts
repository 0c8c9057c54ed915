/**
 * The baseline of gateway.bench.ts, run as its own process: a bare fastify app with the two routes
 * of the session surface and nothing else (no hooks, schemas, rate limit, Kafka or Cassandra).
 * POST /sessions parses the JSON body and keeps a Session-shaped object in a Map; GET /sessions/:id
 * answers it from there. The object is the template in BARE_SESSION (a real GET response of the
 * gateway, so both serialise bodies of the same size) with the new id.
 *
 *   BARE_SESSION='{...}' node --import tsx test/bench/bare-fastify.ts [port=0]
 */
import { randomUUID } from "node:crypto";
import Fastify from "fastify";

const port = Number(process.argv[2] ?? 0);
const template = JSON.parse(process.env.BARE_SESSION ?? "{}") as Record<string, unknown>;
const TTL_SECONDS = 3600;
const sessions = new Map<string, Record<string, unknown>>();

const app = Fastify({ logger: false });
app.post<{ Body: { burner_address?: string } }>("/sessions", async (request) => {
  const id = randomUUID();
  const expiresAt = Math.floor(Date.now() / 1000) + TTL_SECONDS;
  sessions.set(id, { ...template, id, burner_address: request.body.burner_address, expires_at: expiresAt });
  return { id, status: "pending", expires_at: expiresAt };
});
app.get<{ Params: { id: string } }>("/sessions/:id", async (request, reply) => {
  const session = sessions.get(request.params.id);
  if (session === undefined) return reply.code(404).send({ error: "session not found" });
  return session;
});

const address = await app.listen({ host: "127.0.0.1", port });
console.log(`bare listening on ${address}`);
process.once("SIGTERM", () => {
  app.close().then(() => process.exit(0));
});
