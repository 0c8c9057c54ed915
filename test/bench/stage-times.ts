/**
 * Where a POST /sessions spends its time, from the timestamps of the records it leaves behind. Each
 * record carries its producer's send time: the command's is when the gateway sent it, the
 * SessionCreated event's when the actor host sent its transaction's records (after the fetch, the
 * decision and any wait for the partition's previous transaction), the state's when the projector
 * had written the session to Cassandra and published it. Clocks are one machine's.
 */

import type { KafkaClient } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../src/kafka/topics.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { median } from "./workload.ts";

const TOPICS = [TOPIC.sessionCommands, TOPIC.sessionEvents, TOPIC.sessionState] as const;
type Marks = Map<string, Map<number, bigint>>;

/** Where each topic ends now: what a later `stagesSince` reads from. */
export async function markEnds(kafka: KafkaClient): Promise<Marks> {
  return new Map(await Promise.all(TOPICS.map(async (t) => [t, await stableEndOffsets(kafka, t)] as const)));
}

/**
 * Per session created since `marks`: command -> event (the actors) and event -> state (the Kafka
 * commit, the projector's fetch, write and publish), as "p50 / p99 ms", and the events the actors'
 * transactions carried on average.
 */
export async function stagesSince(
  kafka: KafkaClient,
  marks: Marks,
): Promise<{ text: string; eventsPerTransaction: number }> {
  // The first record of each session id on each topic: its command, its SessionCreated, its first state.
  const first = new Map<string, Map<string, number>>();
  // A transaction's events go out in one produce request, which stamps them all with one time.
  const requests = new Set<string>();
  let events = 0;
  for (const topic of TOPICS) {
    const seen = new Map<string, number>();
    first.set(topic, seen);
    await readTopic(kafka, {
      topic,
      from: marks.get(topic) ?? new Map(),
      onBatch: (records) => {
        for (const r of records) {
          const key = r.key?.toString();
          if (key && r.timestamp !== undefined && !seen.has(key)) seen.set(key, r.timestamp);
          if (topic === TOPIC.sessionEvents) {
            events++;
            requests.add(`${r.partition}:${r.timestamp}`);
          }
        }
      },
    });
  }
  const [commands, created, states] = TOPICS.map((t) => first.get(t) ?? new Map<string, number>());
  const actor: number[] = [];
  const projector: number[] = [];
  for (const [id, sent] of commands ?? []) {
    const appended = created?.get(id);
    const published = states?.get(id);
    if (appended === undefined || published === undefined) continue;
    actor.push(appended - sent);
    projector.push(published - appended);
  }
  const fmt = (xs: number[]) => `p50 ${median(xs).toFixed(0)} / p99 ${percentile(xs, 0.99).toFixed(0)} ms`;
  const eventsPerTransaction = events / Math.max(1, requests.size);
  return {
    text: `${actor.length} sessions: command->event ${fmt(actor)}, event->state ${fmt(projector)}; ${eventsPerTransaction.toFixed(1)} events per transaction`,
    eventsPerTransaction,
  };
}

function percentile(xs: number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}
