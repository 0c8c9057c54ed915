/**
 * Webhook delivery through the webhooks role, to a local HTTPS receiver (a test CA the worker trusts):
 *
 * 1. Throughput: `--events` WebhookEvent records for `--merchants` merchants written to
 *    webhook.events at once, deliveries per second until the receiver has every Idempotency-Key;
 *    beside the same signed HTTPS POSTs sent by a plain loop (node:https, keep-alive, as many at once
 *    as the worker's WEBHOOK_CONCURRENCY). Ratio = worker / plain loop.
 * 2. Delay: `--latency` records written one at a time, `--rate` a second: from the record's write to
 *    webhook.events (the session actor writes it in the transaction of the status change) to the
 *    receiver's answer, p50 and p99.
 *
 *   flock /tmp/stack.lock npx tsx test/bench/webhooks.bench.ts [--events 2000] [--merchants 50] [--latency 200] [--rate 20]
 *
 * The worker is the role as a child process (`src/cli.ts webhooks`), against the local stack.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createPlainProducer } from "../../src/kafka/at-least-once.ts";
import type { WebhookEvent } from "../../src/records/webhook-events.ts";
import { webhookEndpoints } from "../../src/store/webhook-endpoints.ts";
import { newWebhookSecret, signatureHeader } from "../../src/webhooks/signing.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { startChild } from "../support/child-process.ts";
import { codecs } from "../support/codecs.ts";
import { startTestService } from "../support/service.ts";
import { makeTestCa } from "../support/test-ca.ts";
import { withFileLock } from "./flock.ts";

const { values: args } = parseArgs({
  options: {
    events: { type: "string", default: "2000" },
    merchants: { type: "string", default: "50" },
    latency: { type: "string", default: "200" },
    rate: { type: "string", default: "20" },
  },
});
const EVENTS = Number(args.events);
const MERCHANTS = Number(args.merchants);
const LATENCY_RUNS = Number(args.latency);
const RATE = Number(args.rate);
const CONCURRENCY = 32; // WEBHOOK_CONCURRENCY's default, for both sides

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};

await withFileLock(".local/run/bench.lock", async () => {
  const service = await startTestService({ roles: [] });
  const ca = makeTestCa(["localhost"]);
  // The receiver: notes when each Idempotency-Key first arrives, answers 200.
  const arrived = new Map<string, number>();
  let waiter: { n: number; resolve: () => void } | null = null;
  const server = createServer({ cert: ca.cert, key: ca.key }, (req, res) => {
    req.resume();
    req.on("end", () => {
      const key = String(req.headers["idempotency-key"]);
      if (!arrived.has(key)) arrived.set(key, performance.timeOrigin + performance.now());
      res.writeHead(200).end();
      if (waiter && arrived.size >= waiter.n) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const allArrived = (n: number) =>
    new Promise<void>((resolve) => {
      if (arrived.size >= n) return resolve();
      waiter = { n, resolve };
    });

  const merchants = await Promise.all(
    Array.from({ length: MERCHANTS }, async (_, i) => {
      const m = {
        merchantId: `bench_${randomUUID()}`,
        url: `https://localhost:${port}/m/${i}`,
        secret: newWebhookSecret(),
      };
      await webhookEndpoints(service.cassandra).put({ ...m, endpointId: `we_${randomUUID()}` });
      return m;
    }),
  );
  const eventFor = (i: number): WebhookEvent => {
    const sessionId = randomUUID();
    const merchantId = (merchants[i % MERCHANTS] as (typeof merchants)[number]).merchantId;
    return {
      idempotencyKey: `${sessionId}:payment.succeeded`,
      merchantId,
      eventType: "payment.succeeded",
      sessionId,
      payload: `{"session_id":"${sessionId}","event_type":"payment.succeeded","amount":"25000000","settled_amount":"24800000","overpaid_amount":null}`,
      createdAt: Date.now(),
    };
  };

  // 1a. The plain loop: the same signed POSTs, no Kafka, no ledger, no checks.
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca: readFileSync(ca.caFile) });
  const plain = Array.from({ length: EVENTS }, (_, i) => eventFor(i));
  arrived.clear();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < plain.length) {
        const e = plain[next++] as WebhookEvent;
        const m = merchants.find((x) => x.merchantId === e.merchantId) as (typeof merchants)[number];
        await new Promise<void>((resolve, reject) => {
          const req = request(m.url, {
            method: "POST",
            agent,
            headers: {
              "Service-Signature": signatureHeader(m.secret, e.payload, Date.now()),
              "Idempotency-Key": e.idempotencyKey,
              "Content-Type": "application/json",
            },
          });
          req.on("response", (res) => res.resume().on("end", () => resolve()));
          req.on("error", reject);
          req.end(e.payload);
        });
      }
    }),
  );
  const plainRate = EVENTS / ((performance.now() - t0) / 1000);
  agent.destroy();

  // 1b. The worker.
  const worker = await startChild("webhooks", ["src/cli.ts", "webhooks"], {
    env: {
      LOG_LEVEL: "warn",
      MERCHANT_MODE: "development",
      WEBHOOK_ALLOW_INSECURE: "true",
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      NODE_EXTRA_CA_CERTS: ca.caFile,
    },
    ready: /^webhooks\s+(.*)$/,
    timeoutMs: 120_000,
  });
  const producer = createPlainProducer(service.kafka);
  await producer.connect();
  const publish = (events: WebhookEvent[]) =>
    producer.send(
      TOPIC.webhookEvents,
      events.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
    );
  // One delivery first, so the group has its partitions before the clock starts.
  arrived.clear();
  await publish([eventFor(0)]);
  await allArrived(1);

  arrived.clear();
  const burst = Array.from({ length: EVENTS }, (_, i) => eventFor(i));
  const w0 = Date.now();
  await publish(burst);
  await allArrived(EVENTS);
  const last = Math.max(...arrived.values());
  const workerRate = EVENTS / ((last - w0) / 1000);

  // 2. Delay, one record at a time.
  arrived.clear();
  const delays: number[] = [];
  for (let i = 0; i < LATENCY_RUNS; i++) {
    const e = eventFor(i);
    const sent = performance.timeOrigin + performance.now();
    await publish([e]);
    await allArrived(i + 1);
    delays.push((arrived.get(e.idempotencyKey) as number) - sent);
    await new Promise((r) => setTimeout(r, 1000 / RATE));
  }

  console.log(
    `webhooks: ${EVENTS} events, ${MERCHANTS} merchants, ${CONCURRENCY} at once, HTTPS to localhost`,
  );
  console.log(`  plain signed HTTPS loop  ${plainRate.toFixed(0)} posts/s`);
  console.log(
    `  webhooks role            ${workerRate.toFixed(0)} deliveries/s (ratio ${(workerRate / plainRate).toFixed(2)})`,
  );
  console.log(
    `  write -> delivered       p50 ${quantile(delays, 0.5).toFixed(1)} ms, p99 ${quantile(delays, 0.99).toFixed(1)} ms (${LATENCY_RUNS} at ${RATE}/s)`,
  );

  await worker.stop();
  await producer.disconnect();
  server.closeAllConnections();
  server.close();
  await service.stop();
});
