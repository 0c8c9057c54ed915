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
 *   flock /tmp/stack.lock npx tsx test/bench/webhooks.bench.ts [--events 2000] [--merchants 50] [--latency 200] [--rate 20] [--before <dir>]
 *
 * The worker is the role as a child process (`src/cli.ts webhooks`), against the local stack. With
 * `--before <dir>` (a checkout of earlier code) its worker is measured first, in the same run, in a
 * keyspace of its own (`<CASSANDRA_KEYSPACE>_before`). LWTs per delivery: the Paxos rounds the worker
 * reports (`settlement_webhook_ledger_paxos_rounds`) over the burst, divided by its deliveries.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { createPlainProducer } from "../../src/kafka/at-least-once.ts";
import type { WebhookEvent } from "../../src/records/webhook-events.ts";
import { connectCassandra } from "../../src/store/cassandra.ts";
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
    /** A checkout of the code before (e.g. `git archive <commit> | tar -x -C <dir>`, node_modules linked). */
    before: { type: "string" },
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
  /** Resolves once every one of `keys` has arrived (a stray earlier key does not count). */
  const allArrived = async (keys: string[]) => {
    while (keys.some((k) => !arrived.has(k))) {
      await new Promise<void>((resolve) => {
        waiter = { n: arrived.size + 1, resolve };
      });
    }
  };

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

  // 1b. The worker: the earlier code's first (with --before), then this one, one after the other in
  // the same group; each in its own keyspace, with the merchants' endpoints written to both.
  const producer = createPlainProducer(service.kafka);
  await producer.connect();
  const publish = (events: WebhookEvent[]) =>
    producer.send(
      TOPIC.webhookEvents,
      events.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
    );
  const keyspace = process.env.CASSANDRA_KEYSPACE ?? "settlement";
  async function runWorker(label: string, cli: string, ks: string) {
    const store = await connectCassandra({ ...service.stack.cassandra, keyspace: ks }, { migrate: true });
    for (const m of merchants) await webhookEndpoints(store).put({ ...m, endpointId: `we_${randomUUID()}` });
    await store.shutdown();
    const metricsPort = 29_990 + Math.floor(Math.random() * 9);
    const worker = await startChild(`webhooks (${label})`, [cli, "webhooks"], {
      env: {
        LOG_LEVEL: "warn",
        MERCHANT_MODE: "development",
        WEBHOOK_ALLOW_INSECURE: "true",
        WEBHOOK_CONCURRENCY: String(CONCURRENCY),
        NODE_EXTRA_CA_CERTS: ca.caFile,
        CASSANDRA_KEYSPACE: ks,
        METRICS_PORT: String(metricsPort),
      },
      ready: /^webhooks\s+(.*)$/,
      timeoutMs: 120_000,
    });
    // The Paxos rounds the worker paid on its ledger (the metric exists from issue 19 item 6 on).
    const paxosRounds = async (): Promise<number | null> => {
      const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then(
        (r) => r.text(),
        () => "",
      );
      const m = /^settlement_webhook_ledger_paxos_rounds (\d+)/m.exec(text);
      return m ? Number(m[1]) : null;
    };
    // One delivery first, so the group has its partitions before the clock starts.
    const warm = eventFor(0);
    await publish([warm]);
    await allArrived([warm.idempotencyKey]);

    const burst = Array.from({ length: EVENTS }, (_, i) => eventFor(i));
    const rounds0 = await paxosRounds();
    const w0 = Date.now();
    await publish(burst);
    await allArrived(burst.map((e) => e.idempotencyKey));
    const last = Math.max(...burst.map((e) => arrived.get(e.idempotencyKey) as number));
    const rate = EVENTS / ((last - w0) / 1000);
    // The settles of the last attempts are written after the receiver answered: wait for them.
    await new Promise((r) => setTimeout(r, 1000));
    const rounds1 = await paxosRounds();
    const lwtPerDelivery = rounds0 === null || rounds1 === null ? null : (rounds1 - rounds0) / EVENTS;

    // 2. Delay, one record at a time.
    const delays: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const e = eventFor(i);
      const sent = performance.timeOrigin + performance.now();
      await publish([e]);
      await allArrived([e.idempotencyKey]);
      delays.push((arrived.get(e.idempotencyKey) as number) - sent);
      await new Promise((r) => setTimeout(r, 1000 / RATE));
    }
    await worker.stop();
    return { label, rate, lwtPerDelivery, delays };
  }

  const runs = [];
  if (args.before) runs.push(await runWorker("before", `${args.before}/src/cli.ts`, `${keyspace}_before`));
  runs.push(await runWorker("this code", "src/cli.ts", keyspace));

  console.log(
    `webhooks: ${EVENTS} events, ${MERCHANTS} merchants, ${CONCURRENCY} at once, HTTPS to localhost`,
  );
  console.log(`  plain signed HTTPS loop   ${plainRate.toFixed(0)} posts/s`);
  for (const r of runs) {
    const lwt = r.lwtPerDelivery === null ? "not counted" : r.lwtPerDelivery.toFixed(2);
    console.log(
      `  webhooks role, ${r.label.padEnd(10)} ${r.rate.toFixed(0)} deliveries/s (ratio ${(r.rate / plainRate).toFixed(2)}), LWTs per delivery ${lwt}; write -> delivered p50 ${quantile(r.delays, 0.5).toFixed(1)} ms, p99 ${quantile(r.delays, 0.99).toFixed(1)} ms (${LATENCY_RUNS} at ${RATE}/s)`,
    );
  }

  await producer.disconnect();
  server.closeAllConnections();
  server.close();
  await service.stop();
});
