import { type Address, parseAbiItem } from "viem";
import { createKafka, kafkajs } from "../../../src/kafka/client.ts";
import { type ReadRecord, readTopic } from "../../../src/kafka/topic-reader.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { codecs } from "../codecs.ts";
import type { ChainClients, Flow } from "./load.ts";

/**
 * The fault proof's count, after the load and the chaos ended: every journal event, outbox record
 * (executor.commands, webhook.events), executor result and on-chain transfer out of a burner, and
 * every webhook the merchant's endpoint received, each checked for loss and for doubling. `problems`
 * lists every violation; empty means 0 lost and 0 doubled.
 */
export interface Audit {
  figures: Record<string, number>;
  problems: string[];
  /**
   * For each finished commit without a SweepCompleted, and each flow that did not finish: what its
   * session and the executor did, so the cause is in the report (its journal, its commands and
   * every result with its error text).
   */
  explained: Explained[];
}

export interface Explained {
  sessionId: string;
  commandIds: string[];
  lines: string[];
}

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

async function readAll(brokers: string, topic: string, onRecord: (r: ReadRecord) => void) {
  const kafka = createKafka({ brokers: [brokers], clientId: "fault-proof-audit" });
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const from = new Map(offsets.map((o) => [o.partition, 0n]));
  await readTopic(kafka, { topic, from, onBatch: (rs) => rs.forEach(onRecord) });
}

const countBy = <K>(keys: Iterable<K>) => {
  const m = new Map<K, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
};
const doubled = <K>(m: Map<K, number>) =>
  [...m].filter(([, n]) => n > 1).map(([k, n]) => `${String(k)} x${n}`);

/** What the count reads, decoded: the run's topics, the receiver's log and the chain's transfers. */
export interface Observed {
  flows: readonly Pick<Flow, "id" | "kind" | "step" | "burner">[];
  /** session.events, in any order. */
  events: readonly { sessionId: string; version: number; type: string }[];
  /** executor.commands' command ids, and each executor.results record's command and whether it is final. */
  commandIds: readonly string[];
  /** `final`: confirmed, or failed with retryable=false (not a submission or a failed try). */
  results: readonly { commandId: string; final: boolean }[];
  /** Idempotency-Keys of the merchant's records on webhook.events. */
  webhookKeys: readonly string[];
  /** Idempotency-Keys of the webhooks the merchant's endpoint received, in arrival order. */
  received: readonly string[];
  /** For each burner (lower case), the hashes of the USDC transfers out of it since the run began. */
  txsOf: ReadonlyMap<string, ReadonlySet<string>>;
}

export async function audit(opts: {
  brokers: string;
  flows: readonly Flow[];
  merchantId: string;
  /** Idempotency-Keys of the webhooks the merchant's endpoint received, in arrival order. */
  received: readonly string[];
  A: ChainClients;
  fromBlock: bigint;
}): Promise<Audit> {
  const events: Observed["events"][number][] = [];
  // What the explanation of an unswept commit or an unfinished flow prints, by session: the story in the topics' words.
  const story = new Map<string, string[]>();
  const commandsOf = new Map<string, string[]>();
  const tell = (sessionId: string | null, line: string) => {
    if (sessionId) story.set(sessionId, [...(story.get(sessionId) ?? []), line]);
  };
  const at = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 23) : "?");
  await readAll(opts.brokers, TOPIC.sessionEvents, (r) => {
    if (!r.value) return;
    const e = codecs.sessionEvent.decode(r.value);
    events.push({ sessionId: e.metadata.sessionId, version: e.metadata.version, type: e.type });
    tell(e.metadata.sessionId, `${at(Number(r.timestamp))} event v${e.metadata.version} ${e.type}`);
  });
  const commandIds: string[] = [];
  await readAll(opts.brokers, TOPIC.executorCommands, (r) => {
    if (!r.value) return;
    const c = codecs.executorCommand.decode(r.value);
    commandIds.push(c.commandId);
    if (c.sessionId) commandsOf.set(c.sessionId, [...(commandsOf.get(c.sessionId) ?? []), c.commandId]);
    tell(c.sessionId, `${at(Number(r.timestamp))} command ${c.commandId} ${c.command.type}`);
  });
  const results: Observed["results"][number][] = [];
  await readAll(opts.brokers, TOPIC.executorResults, (r) => {
    if (!r.value) return;
    const res = codecs.executorResult.decode(r.value);
    const body = res.result as { errorMessage?: string; retryable?: boolean; txHash?: string | null };
    results.push({
      commandId: res.commandId,
      final: res.result.type !== "TransactionSubmitted" && body.retryable !== true,
    });
    const detail = [
      body.errorMessage !== undefined ? `"${body.errorMessage}" retryable=${body.retryable}` : "",
      body.txHash ? `tx ${body.txHash}` : "",
    ].join(" ");
    tell(res.sessionId, `${at(res.occurredAt)} result ${res.commandId} ${res.result.type} ${detail}`);
  });
  const webhookKeys: string[] = [];
  await readAll(opts.brokers, TOPIC.webhookEvents, (r) => {
    if (!r.value) return;
    const w = codecs.webhookEvent.decode(r.value);
    if (w.merchantId === opts.merchantId) webhookKeys.push(w.idempotencyKey);
  });
  // Every funded burner: a finished flow's transfers are counted, an unfinished one's explained.
  const burners = opts.flows.filter((f) => f.step !== "new" && f.step !== "created").map((f) => f.burner);
  const txsOf = new Map<string, Set<string>>();
  for (let i = 0; i < burners.length; i += 50) {
    const logs = await opts.A.client.getLogs({
      address: opts.A.chain.usdc,
      event: transferEvent,
      args: { from: burners.slice(i, i + 50) },
      fromBlock: opts.fromBlock,
    });
    for (const log of logs) {
      const from = (log.args.from as Address).toLowerCase();
      const set = txsOf.get(from) ?? new Set<string>();
      set.add(log.transactionHash);
      txsOf.set(from, set);
    }
  }
  const counted = count({
    flows: opts.flows,
    events,
    commandIds,
    results,
    webhookKeys,
    received: opts.received,
    txsOf,
  });
  const swept = new Set(events.filter((e) => e.type === "SweepCompleted").map((e) => e.sessionId));
  for (const f of opts.flows) {
    if (!f.id) continue;
    const unswept = f.kind === "commit" && f.step === "done" && !swept.has(f.id);
    if (!unswept && f.step === "done") continue;
    const txs = [...(txsOf.get(f.burner.toLowerCase()) ?? [])];
    const what = unswept ? `unswept commit #${f.n}` : `unfinished ${f.kind} #${f.n} at ${f.step}`;
    counted.explained.push({
      sessionId: f.id,
      commandIds: commandsOf.get(f.id) ?? [],
      lines: [
        `${what} session ${f.id}: ended ${f.status}, burner ${f.burner}, transfers out of it: ${txs.join(", ") || "none"}`,
        ...(story.get(f.id) ?? []).sort(),
      ],
    });
  }
  return counted;
}

/** The count itself, pure: every violation of 0 lost and 0 doubled in what was observed. */
export function count(o: Observed): Audit {
  const problems: string[] = [];
  const ids = new Set(o.flows.flatMap((f) => (f.id ? [f.id] : [])));

  // The journal: each session's versions are 1..n, none missing, none twice.
  const versions = new Map<string, number[]>();
  const eventTypes = new Map<string, Map<string, number>>();
  for (const e of o.events) {
    versions.set(e.sessionId, [...(versions.get(e.sessionId) ?? []), e.version]);
    const types = eventTypes.get(e.sessionId) ?? new Map<string, number>();
    types.set(e.type, (types.get(e.type) ?? 0) + 1);
    eventTypes.set(e.sessionId, types);
  }
  for (const [id, vs] of versions) {
    const sorted = [...vs].sort((a, b) => a - b);
    if (sorted.some((v, i) => v !== i + 1))
      problems.push(`session ${id}: journal versions ${sorted.join(",")} (a gap or a doubled event)`);
  }
  for (const id of ids) if (!versions.has(id)) problems.push(`session ${id}: answered 200 but no journal`);

  // The outbox the actors write in the same transaction as the events.
  problems.push(...doubled(countBy(o.commandIds)).map((d) => `executor command doubled: ${d}`));
  problems.push(...doubled(countBy(o.webhookKeys)).map((d) => `webhook event doubled: ${d}`));
  // Every step the executor was asked for ended: a command with no final result was dropped.
  const ended = new Set(o.results.filter((r) => r.final).map((r) => r.commandId));
  problems.push(
    ...[...new Set(o.commandIds)]
      .filter((id) => !ended.has(id))
      .map((id) => `executor command never ended: ${id}`),
  );

  // Deliveries: each queued webhook reached the endpoint; a repeat of one key is a redelivery the
  // receiver recognises (at-least-once, by Idempotency-Key), counted apart.
  const got = countBy(o.received);
  const queued = new Set(o.webhookKeys);
  problems.push(...[...queued].filter((k) => !got.has(k)).map((k) => `webhook never delivered: ${k}`));
  problems.push(
    ...[...got.keys()].filter((k) => !queued.has(k)).map((k) => `webhook delivered but never queued: ${k}`),
  );

  // On chain: each finished session's deposit left its burner in exactly one transaction.
  let chainTxs = 0;
  for (const f of o.flows) {
    if (f.step !== "done") continue;
    const n = o.txsOf.get(f.burner.toLowerCase())?.size ?? 0;
    chainTxs += n;
    if (n !== 1) problems.push(`burner ${f.burner}: ${n} transactions moved its deposit (want 1)`);
    const types = f.id ? eventTypes.get(f.id) : undefined;
    const want = f.kind === "commit" ? "SweepCompleted" : "RefundUpdated";
    if (!types?.get(want)) problems.push(`session ${f.id}: ${f.kind} done but no ${want} in its journal`);
    else if (f.kind === "commit" && types.get(want) !== 1)
      problems.push(`session ${f.id}: ${types.get(want)} SweepCompleted events`);
  }

  return {
    figures: {
      sessions: ids.size,
      events: o.events.length,
      executorCommands: o.commandIds.length,
      executorResults: o.results.length,
      chainTransactions: chainTxs,
      webhookEvents: o.webhookKeys.length,
      webhookDeliveries: o.received.length,
      webhookRedeliveries: o.received.length - got.size,
    },
    problems,
    explained: [],
  };
}
