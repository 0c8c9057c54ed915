import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { createKeyedConsumer } from "../kafka/keyed-consumer.ts";
import type { ReadRecord } from "../kafka/topic-reader.ts";
import type { Logger } from "../logging.ts";
import type { WebhookEvent } from "../records/webhook-events.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { type MerchantEventRow, merchantEvents } from "../store/merchant-events.ts";
import { ledgerBucket, type NewDelivery, webhookDeliveries } from "../store/webhook-deliveries.ts";
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
/** How far apart the actors' and this process's clocks may be (for the upgrade's old table). */
const LEGACY_CLOCK_MARGIN_MS = 60_000;

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
    async run(job: DeliveryJob, sent) {
      try {
        const outcome = await attemptDelivery(job, job, deps, { claimed: job.claimed ?? false, sent });
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

  // Keys first queued before this process started may be in the ledger's table before 0021 (a
  // record re-delivered across the upgrade), if it has rows; the margin covers clocks apart. Later
  // keys cannot be: nothing writes that table any more.
  let legacyBefore = Number.POSITIVE_INFINITY;

  /**
   * One consumed batch of one webhook.events partition: its events in the event list, its new
   * deliveries in the ledger (one conditional batch per bucket, usually one), their first attempts
   * queued here. Records of a key already in the ledger add nothing.
   */
  async function enqueue(records: ReadRecord[]): Promise<void> {
    // A record that cannot be read throws a terminal error: the consumer works the batch record by
    // record and parks that one.
    const decoded = records.map((r) => ({
      partition: r.partition,
      event: opts.codecs.webhookEvent.decode(r.value ?? Buffer.alloc(0)) as WebhookEvent,
    }));
    // A key's first record in the batch decides (a later one of it is the same delivery).
    const byKey = new Map(decoded.reverse().map((d) => [d.event.idempotencyKey, d] as const));
    const unique = [...byKey.values()].reverse();
    const now = Date.now();
    // The event list's first-writer read gives the time the key was first queued: with the
    // partition, the key's bucket in the ledger, the same for every record of the key.
    const listed = await Promise.all(unique.map((d) => events.recall(d.event)));
    // With room in the queue the insert claims the first attempt for this process (no separate
    // claim); otherwise the row is due now and a scan offers it.
    let room = queue.room();
    const claimed = new Set<string>();
    const entries: NewDelivery[] = unique.map(({ partition, event }, i) => {
      const firstQueuedAt = (listed[i] as MerchantEventRow).createdAt;
      const claim = room-- > 0;
      if (claim) claimed.add(event.idempotencyKey);
      return {
        ...event,
        eventCreatedAt: event.createdAt,
        firstQueuedAt,
        bucket: ledgerBucket(partition, firstQueuedAt),
        nextRetryAt: claim ? now + leaseMs(deps) : now,
      };
    });
    // The event list beside the ledger rows, whatever the ledger answers: it holds every event,
    // delivered or not. If either write fails the batch stays uncommitted and is worked again (both
    // are idempotent; a claimed row then waits for its lease, as below).
    const [rows] = await Promise.all([
      ledger.enqueueAll(entries, now, legacyBefore),
      Promise.all(listed.map((row) => events.store(row, now))),
    ]);
    const added = new Set(rows.map((r) => r.idempotencyKey));
    for (const e of entries) {
      if (!added.has(e.idempotencyKey))
        log.info({ key: e.idempotencyKey }, "webhook event already in the ledger");
    }
    for (const row of rows) {
      // Refused here (full since), a claimed row waits for its lease to end: late, never lost.
      queue.push({ ...row, nextRetryAt: row.nextRetryAt ?? now, claimed: claimed.has(row.idempotencyKey) });
    }
  }

  const consumer = createKeyedConsumer(opts.kafka, {
    codecs: opts.codecs,
    groupId: WEBHOOKS_GROUP,
    topic: TOPIC.webhookEvents,
    // Records taken at once: the ledger writes them in one conditional batch per bucket; the
    // attempts run in the queue, not in the consumer.
    maxInFlight: 256,
    log: (level, msg, fields) => log[level](fields ?? {}, msg),
    onCrash: (err) => log.error({ err }, "webhooks consumer stopped"),
    handleBatch: enqueue,
  });

  return {
    ledger,
    /** Attempts running and waiting in this process. */
    inFlight: () => queue.running() + queue.waiting(),
    async start() {
      legacyBefore = (await ledger.hasLegacyRows()) ? Date.now() + LEGACY_CLOCK_MARGIN_MS : 0;
      // The ledger's due retries first: they do not wait for the group to hand out partitions.
      scheduler.start();
      await consumer.start();
    },
    /**
     * Leaves the group at once, lets the attempts under way finish, and gives back the claims of
     * first attempts still queued here, so another worker makes them now, not at the lease's end.
     */
    async stop() {
      scheduler.stop();
      await consumer.stop();
      const claims = (await queue.stop()).filter((job) => job.claimed);
      const now = Date.now();
      const released = await Promise.all(
        claims.map((job) =>
          ledger.release(job, now).catch((err: unknown) => {
            log.warn({ err, key: job.idempotencyKey }, "claim not given back: it ends with its lease");
            return false;
          }),
        ),
      );
      if (claims.length > 0)
        log.info(
          { claims: claims.length, released: released.filter(Boolean).length },
          "webhook claims given back",
        );
    },
  };
}
