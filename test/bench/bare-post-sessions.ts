/**
 * The baseline of post-sessions.bench.ts, run as its own process: POST /sessions as the least a
 * gateway must do, with no actors behind it. It validates like the gateway (the same zod route
 * schemas and JSON parser), checks the signatures with the same functions
 * (src/chains/evm/typed-data/authorization.ts, native recovery), builds and encodes the same CreateSession
 * command, and sends it with one idempotent kafkajs produce per request (acks from all replicas),
 * then answers `{ id, status, expires_at }`: no reply to wait for, no projection, no rate limit,
 * hooks, logs or metrics.
 *
 *   node --import tsx test/bench/bare-post-sessions.ts '{"brokers":[...],"topic":"...","chains":[...]}'
 */

import { randomUUID } from "node:crypto";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import {
  createSessionBodySchema,
  createSessionHeadersSchema,
  createSessionResponseSchema,
} from "../../src/api/sessions.ts";
import { errorSchema } from "../../src/api/wire.ts";
import { type DelegateChain, evmSignatureChecks } from "../../src/chains/evm/typed-data/authorization.ts";
import { createSessionCommand } from "../../src/gateway/routes/sessions.ts";
import { acceptJsonOnly } from "../../src/gateway/server.ts";
import { createKafka, kafkajs } from "../../src/kafka/client.ts";
import { codecs } from "../support/codecs.ts";

const { brokers, topic, chains } = JSON.parse(process.argv[2] ?? "{}") as {
  brokers: string[];
  topic: string;
  chains: DelegateChain[];
};
if (!brokers || !topic || !chains) throw new Error("usage: bare-post-sessions.ts '{brokers, topic, chains}'");
const checks = evmSignatureChecks(chains);
const TTL_SECONDS = 3600;

const kafka = createKafka({ brokers, clientId: "bench.bare-post-sessions" });
// The gateway's producer settings (src/kafka/at-least-once.ts): idempotent, one request in flight.
const producer = kafkajs(kafka).producer({ idempotent: true, maxInFlightRequests: 1 });
await producer.connect();

const app = Fastify({ logger: false }).withTypeProvider<ZodTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.setSerializerCompiler(serializerCompiler);
acceptJsonOnly(app);
app.post(
  "/sessions",
  {
    schema: {
      headers: createSessionHeadersSchema,
      body: createSessionBodySchema,
      response: { 200: createSessionResponseSchema, 400: errorSchema },
    },
  },
  async (request, reply) => {
    const body = request.body;
    const issuedAt = Date.now();
    const auth = await checks.authorization(body.eip7702_auth, body.burner_address);
    if (!auth.ok) return reply.code(400).send({ error: auth.message });
    if (body.standing_refund !== undefined) {
      const refund = await checks.standingRefund(body.standing_refund, body.burner_address, issuedAt / 1000);
      if (!refund.ok) return reply.code(400).send({ error: refund.message });
    }
    const ids = { sessionId: randomUUID(), commandId: randomUUID() };
    const command = createSessionCommand(body, ids, issuedAt, TTL_SECONDS);
    await producer.send({
      topic,
      acks: -1,
      messages: [{ key: ids.sessionId, value: codecs.sessionCommand.encode(command) }],
    });
    return { id: ids.sessionId, status: "pending" as const, expires_at: command.data.expiresAt };
  },
);

const address = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`bare listening on ${address}`);
process.once("SIGTERM", () => {
  app.close().then(() => producer.disconnect().then(() => process.exit(0)));
});
