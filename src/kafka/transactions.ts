import type { Message, Producer, Transaction } from "kafkajs";
import { BaseError } from "../support/errors.ts";
import { retry } from "../support/retry.ts";
import { BROKER_RETRY_MAX_MS, type KafkaClient, kafkajs } from "./client.ts";
import { messageBytes, requestChunks } from "./request-size.ts";

export interface OutgoingMessage {
  key: string;
  value: Buffer;
  /** Set for co-partitioned topics so a session's records stay in its partition number. */
  partition?: number;
}

export interface TransactionWork {
  sends: Array<{ topic: string; messages: OutgoingMessage[] }>;
  /**
   * Input offsets consumed by this transaction, committed atomically with the sends: one partition
   * number, each of its co-partitioned input topics that the transaction read from.
   */
  offsets: { groupId: string; partition: number; topics: Array<{ topic: string; nextOffset: bigint }> };
}

/** The offset of the last record this transaction appended, per "topic:partition". */
export type AppendedOffsets = Map<string, bigint>;

/** Retryable: the caller re-initialises (fencing what was in flight), re-reads the log and goes on. */
export class TransactionFailedError extends BaseError {
  override name = "TransactionFailedError";
  readonly code = "transaction_failed";
  readonly retryable = true;
  /**
   * true when the outcome is unknown (timeout, lost connection during commit): the transaction may
   * or may not have committed, and only re-reading the log tells.
   */
  readonly indefinite: boolean;
  constructor(cause: unknown, indefinite: boolean) {
    super(`transaction failed${indefinite ? " with an unknown outcome" : ""}: ${describe(cause)}`, { cause });
    this.indefinite = indefinite;
  }
}

export interface PartitionTransactor {
  /** One consume-transform-produce step, all or nothing. */
  run(work: TransactionWork): Promise<AppendedOffsets>;
  /** Initialises the producer now (fencing any zombie holding the same transactional id). */
  fence(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A transactional producer for ONE input partition. The transactional id names the partition, so a
 * new owner's initialisation fences the old owner (kafkajs's sendOffsets carries no group
 * generation, KIP-447, so this is the only zombie fence it has).
 *
 * After ANY failure the producer is thrown away, not aborted and reused: an abort or commit whose
 * outcome is unknown may otherwise land on a later transaction of the same epoch (Jepsen, 2024), and
 * kafkajs can be left stuck in ABORTING. Re-initialising under the same id bumps the epoch, which
 * completes or aborts whatever was in flight, and the caller re-reads the log to learn which.
 */
export function createPartitionTransactor(kafka: KafkaClient, transactionalId: string): PartitionTransactor {
  let producer: Producer | null = null;

  const open = async (): Promise<Producer> => {
    if (producer) return producer;
    const p = kafkajs(kafka).producer({
      transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
      transactionTimeout: 60_000,
      // Retries inside kafkajs cover CONCURRENT_TRANSACTIONS while the coordinator finishes the
      // previous epoch's transaction after a re-initialisation, and while it still writes the
      // markers of this producer's previous commit: a transaction begun right after one committed
      // (the host's group commit) is answered so on its AddPartitionsToTxn about one time in five
      // here. The markers take milliseconds, so the first retry comes after 20 ms, as in Kafka's Java
      // producer (KAFKA-5477); 100 ms made those transactions' p90 ~100 ms (PERFORMANCE.md).
      // Capped like every broker retry (BROKER_RETRY_MAX_MS) so a restarted broker is used at once.
      retry: { retries: 15, initialRetryTime: 20, maxRetryTime: BROKER_RETRY_MAX_MS },
    });
    try {
      await p.connect();
      // connect() only initialises kafkajs's idempotent producer: the transactional id is registered
      // (InitProducerId: new epoch, previous holder fenced, its open transaction settled) by the first
      // transaction(). An empty one, begun and ended here, makes opening, and so fence(), really fence.
      await (await p.transaction()).abort();
    } catch (error) {
      await p.disconnect().catch(() => {});
      throw error;
    }
    producer = p;
    return p;
  };

  const discard = async () => {
    const p = producer;
    producer = null;
    await p?.disconnect().catch(() => {});
  };

  return {
    async fence() {
      await discard();
      await open();
    },
    async run(work) {
      let txn: Transaction | null = null;
      try {
        const p = await open();
        const t = await p.transaction();
        txn = t;
        const appended: AppendedOffsets = new Map();
        // One transaction, as many produce requests as its records need: a batch's output may be
        // larger than the broker takes in one request, and splitting it here keeps it atomic.
        const records = work.sends.flatMap((s) => s.messages.map((message) => ({ topic: s.topic, message })));
        for (const chunk of requestChunks(records, (r) => messageBytes(r.message))) {
          const byTopic = new Map<string, Message[]>();
          const counts = new Map<string, number>();
          for (const { topic, message: m } of chunk) {
            let messages = byTopic.get(topic);
            if (!messages) {
              messages = [];
              byTopic.set(topic, messages);
            }
            if (m.partition === undefined) {
              messages.push({ key: m.key, value: m.value });
              continue;
            }
            messages.push({ key: m.key, value: m.value, partition: m.partition });
            const k = `${topic}:${m.partition}`;
            counts.set(k, (counts.get(k) ?? 0) + 1);
          }
          const results = await t.sendBatch({
            acks: -1,
            topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
          });
          // Later requests append after earlier ones: the last one to name a partition has its end.
          const acknowledged = new Set<string>();
          for (const r of results) {
            const k = `${r.topicName}:${r.partition}`;
            const n = counts.get(k);
            if (n === undefined || r.baseOffset === undefined) continue;
            appended.set(k, BigInt(r.baseOffset) + BigInt(n) - 1n);
            acknowledged.add(k);
          }
          // kafkajs silently skips messages for a partition missing from the topic's metadata; the
          // transaction must not commit the input offset without them.
          const missing = [...counts.keys()].filter((k) => !acknowledged.has(k));
          if (missing.length > 0) throw new Error(`no partition leader acknowledged ${missing.join(", ")}`);
        }
        const offsets = work.offsets;
        await retryConcurrentTransactions(() =>
          t.sendOffsets({
            consumerGroupId: offsets.groupId,
            topics: offsets.topics.map(({ topic, nextOffset }) => ({
              topic,
              partitions: [{ partition: offsets.partition, offset: nextOffset.toString() }],
            })),
          }),
        );
        await txn.commit();
        return appended;
      } catch (error) {
        const indefinite = isIndefinite(error);
        if (txn && !indefinite) await txn.abort().catch(() => {});
        await discard();
        throw new TransactionFailedError(error, indefinite);
      }
    },
    close: discard,
  };
}

/**
 * The coordinator answers CONCURRENT_TRANSACTIONS while it still writes the markers of this
 * producer's previous commit. kafkajs retries it for AddPartitionsToTxn (inside its send retries)
 * but not for AddOffsetsToTxn, so a transaction with offsets and no records right after a commit
 * would fail. Nothing was added when it is answered, so asking again is safe (Kafka's Java client
 * does the same).
 */
function retryConcurrentTransactions(fn: () => Promise<void>): Promise<void> {
  // 20 tries, 4 to 8 s of waiting in all: the markers take milliseconds, so running out means the
  // coordinator is in trouble and the transaction fails like any other.
  return retry(fn, {
    attempts: 20,
    baseMs: 20,
    maxMs: 500,
    isRetryable: (error) => (error as { type?: string })?.type === "CONCURRENT_TRANSACTIONS",
  });
}

/** Errors after which the broker may or may not have applied the request. */
function isIndefinite(error: unknown): boolean {
  const name = (error as { name?: string })?.name ?? "";
  const type = (error as { type?: string })?.type ?? "";
  return (
    name === "KafkaJSRequestTimeoutError" ||
    name === "KafkaJSConnectionError" ||
    name === "KafkaJSConnectionClosedError" ||
    name === "KafkaJSNumberOfRetriesExceeded" ||
    type === "REQUEST_TIMED_OUT" ||
    type === "NETWORK_EXCEPTION"
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
