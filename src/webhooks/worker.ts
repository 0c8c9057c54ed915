import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { createKeyedConsumer } from "../kafka/keyed-consumer.ts";
import type { Logger } from "../logging.ts";
import type { WebhookEvent } from "../records/webhook-events.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { merchantEvents } from "../store/merchant-events.ts";
import { webhookDeliveries } from "../store/webhook-deliveries.ts";
import type { Resolver, UrlPolicy } from "./address-guard.ts";
import { type AttemptDeps, attemptDelivery, leaseMs } from "./attempt.ts";
import type { EndpointDirectory } from "./endpoints.ts";
import { createDeliveryQueue, type DeliveryJob } from "./queue.ts";
import { createRetryScheduler } from "./scheduler.ts";

/** The webhooks role's consumer group: members share webhook.events' partitions. */
export const WEBHOOKS_GROUP = "webhooks";

export interface WebhookWorkerSettings {
  retryBaseMs: number;
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  leaseMarginMs: number;
  concurrency: number;
  pollMs: number;
  policy: UrlPolicy;
}

export interface WebhookWorkerOptions {
  kafka: KafkaClient;
  codecs: Codecs;
  cassandra: CassandraClient;
  endpoints: EndpointDirectory;
  settings: WebhookWorkerSettings;
  log: Logger;
  /** How host names are resolved (the system resolver by default). */
  resolve?: Resolver;
}

/** Due retries read per scan; the rest wait for the next one. */
const SCAN_LIMIT = 500;

/**
 * The webhook worker: webhook.events is the queue's input, the Cassandra ledger its state. A record
 * is committed once its delivery is in the ledger (a re-delivered record finds its key there and
 * adds nothing); the first attempt is made at once, retries when the scheduler finds them due.
 * Every attempt is claimed in the ledger first, so processes side by side never attempt the same
 * delivery at once, and one that dies mid-attempt leaves it due again when its lease ends.
 */
export function createWebhookWorker(opts: WebhookWorkerOptions) {
  const { settings, log } = opts;
  const ledger = webhookDeliveries(opts.cassandra);
  const events = merchantEvents(opts.cassandra);
  const deps: AttemptDeps = {
    ledger,
    endpoints: opts.endpoints,
    policy: settings.policy,
    timeouts: { connectMs: settings.connectTimeoutMs, totalMs: settings.totalTimeoutMs },
    retryBaseMs: settings.retryBaseMs,
    leaseMarginMs: settings.leaseMarginMs,
    resolve: opts.resolve,
    log: (level, msg, fields) => log[level](fields, msg),
  };

  const queue = createDeliveryQueue({
    concurrency: settings.concurrency,
    maxQueued: 10 * SCAN_LIMIT,
    async run(job: DeliveryJob) {
      try {
        const outcome = await attemptDelivery(job, job, deps, { claimed: job.claimed ?? false });
        if (outcome.kind === "done" && outcome.nextRetryAt !== null) scheduler.wakeAt(outcome.nextRetryAt);
      } catch (err) {
        // The ledger was unreachable: the claim's lease ends and a later scan tries again.
        log.error({ err, key: job.idempotencyKey }, "webhook attempt could not be recorded");
      }
    },
  });

  const scheduler = createRetryScheduler({
    pollMs: settings.pollMs,
    onError: (err) => log.error({ err }, "webhook retry scan failed"),
    async scan() {
      for (const row of await ledger.due(Date.now(), SCAN_LIMIT)) {
        if (row.nextRetryAt === null) continue;
        queue.push({ ...row, nextRetryAt: row.nextRetryAt });
      }
    },
  });

  const consumer = createKeyedConsumer(opts.kafka, {
    codecs: opts.codecs,
    groupId: WEBHOOKS_GROUP,
    topic: TOPIC.webhookEvents,
    // Handling a record is one ledger write; the attempt runs in the queue, not in the consumer.
    maxInFlight: 256,
    log: (level, msg, fields) => log[level](fields ?? {}, msg),
    onCrash: (err) => log.error({ err }, "webhooks consumer stopped"),
    async handle(record) {
      // A record that cannot be read throws a terminal error: the consumer parks it.
      const event: WebhookEvent = opts.codecs.webhookEvent.decode(record.value ?? Buffer.alloc(0));
      // With room in the queue the insert claims the first attempt for this process (one
      // lightweight transaction fewer); otherwise the row is due now and a scan offers it.
      const now = Date.now();
      const claimed = queue.hasRoom();
      const due = claimed ? now + leaseMs(deps) : now;
      // The event list (GET /v1/events) beside the ledger row, whatever the ledger answers: it holds
      // every event, delivered or not, and a re-worked record finds its key in the ledger. If either
      // write fails the record stays uncommitted and is worked again (both are idempotent; a claimed
      // row then waits for its lease, as below). Side by side, so the list adds no wait to a delivery.
      const [row] = await Promise.all([
        ledger.enqueue({ ...event, eventCreatedAt: event.createdAt }, now, due),
        events.record(event, now),
      ]);
      if (!row) {
        log.info({ key: event.idempotencyKey }, "webhook event already in the ledger");
        return;
      }
      // Refused here (full since), a claimed row waits for its lease to end: late, never lost.
      queue.push({ ...row, nextRetryAt: due, claimed });
    },
  });

  return {
    ledger,
    /** Attempts running and waiting in this process. */
    inFlight: () => queue.running() + queue.waiting(),
    async start() {
      // The ledger's due retries first: they do not wait for the group to hand out partitions.
      scheduler.start();
      await consumer.start();
    },
    async stop() {
      scheduler.stop();
      await consumer.stop();
      await queue.stop();
    },
  };
}
