import { randomUUID } from "node:crypto";
import { TOPIC } from "../../topics/catalogue.ts";
import type { SessionCommand } from "../domain/commands.ts";
import type { ReplyTo } from "../domain/merchant/types.ts";
import { type CommandPort, type LiveUpdatesPort, ReplyTimeoutError } from "../gateway/ports.ts";
import type { Logger } from "../logging.ts";
import type { GatewayReply } from "../records/gateway-replies.ts";
import type { SessionStateRecord } from "../records/session-state.ts";
import { createLru } from "../support/lru.ts";
import { createBatchConsumer, createPlainProducer } from "./at-least-once.ts";
import { type ChangelogReads, createChangelogReads } from "./changelog-reads.ts";
import { type KafkaClient, kafkajs } from "./client.ts";
import type { Codecs } from "./codecs.ts";
import { partitionOfKey } from "./key-history.ts";

export interface GatewayBus {
  /** The session's commands, the gateway's own (session.commands). */
  commands: CommandPort;
  /**
   * A command to any entity's topic, keyed by its id, answered on gateway.replies like the session's:
   * `encode` writes the command with the reply address. Every other entity's module makes its port
   * over it (requestPort), so the bus names no entity but the session.
   */
  request(topic: string, key: string, encode: (replyTo: ReplyTo) => Buffer): Promise<GatewayReply>;
  live: LiveUpdatesPort;
  /** The newest state of a session that a reply handed to this gateway (read-your-writes floor). */
  lastReplied(sessionId: string): SessionStateRecord | undefined;
  /** The sessions' states as the actors committed them on session.state (changelog-reads.ts). */
  committedStates: ChangelogReads<SessionStateRecord>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** How many sessions' last replied versions a gateway remembers. */
const REMEMBERED_SESSIONS = 50_000;

/** How long a read of a session this gateway has not seen waits for its consumer of session.state. */
const COMMITTED_WAIT_MS = 3000;

/** How long a starting gateway waits to have read session.state's recent records up to its end. */
const CATCH_UP_MS = 30_000;

/**
 * The gateway's side of request/reply over Kafka: commands go to session.commands keyed by session
 * id; the owning actor answers on gateway.replies inside its transaction. One private consumer
 * group per gateway process reads replies from the end and session.state from its recent records,
 * never committing, and goes on from its own positions after a rejoin.
 */
export function createGatewayBus(deps: {
  codecs: Pick<Codecs, "gatewayReply" | "sessionState" | "sessionCommand">;
  kafka: KafkaClient;
  gatewayId?: string;
  replyTimeoutMs: number;
  /**
   * GATEWAY_RECENT_STATES: how many of session.state's last records a starting gateway reads before
   * it serves, and how many sessions' newest states it keeps as bytes (~1.5 KB each): the most the
   * projector may lag before a read of a session this gateway never served depends on Cassandra.
   */
  recentStates: number;
  log: Logger;
}): GatewayBus {
  const gatewayId = deps.gatewayId ?? randomUUID();
  const producer = createPlainProducer(deps.kafka);
  const pending = new Map<string, { resolve: (r: GatewayReply) => void; timer: NodeJS.Timeout }>();
  const listeners = new Map<string, Set<(s: SessionStateRecord) => void>>();
  const replied = createLru<string, SessionStateRecord>(REMEMBERED_SESSIONS);

  const noteReplied = (record: SessionStateRecord) => {
    const known = replied.get(record.session.id);
    if (!known || known.version < record.version) replied.set(record.session.id, record);
  };

  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  const admin = kafkajs(deps.kafka).admin();
  /** Last stable offsets of session.state, by partition (kafkajs asks the ends and the starts). */
  const stateOffsets = async () =>
    (await admin.fetchTopicOffsets(TOPIC.sessionState)).map((o) => ({
      partition: o.partition,
      start: BigInt(o.low),
      end: BigInt(o.high),
    }));
  const stateEnds = async () => new Map((await stateOffsets()).map((o) => [o.partition, o.end] as const));
  /** Where the consumer begins each session.state partition on its first join (start()). */
  const stateStarts = new Map<number, bigint>();
  const committedStates = createChangelogReads<SessionStateRecord>({
    decode: (value) => deps.codecs.sessionState.decode(value),
    endOf: async (key) => {
      const ends = await stateEnds();
      const partition = partitionOfKey(key, ends.size);
      return { partition, offset: ends.get(partition) ?? 0n };
    },
    waitMs: COMMITTED_WAIT_MS,
    maxKeys: deps.recentStates,
  });

  const consumer = createBatchConsumer(deps.kafka, {
    groupId: `gateway.${gatewayId}`,
    topics: [TOPIC.gatewayReplies, TOPIC.sessionState],
    fromBeginning: false,
    commit: false,
    // After a rejoin it goes on where it was: a skipped state would leave a read older than a
    // state the payer was already shown on another gateway (docs/RELIABILITY.md).
    startAt: (topic, partition) => (topic === TOPIC.sessionState ? stateStarts.get(partition) : undefined),
    concurrency: 8,
    onReady: () => onReady(),
    onCrash: (err) => deps.log.error({ err }, "gateway bus consumer crashed"),
    onProgress: (topic, partition, next) => {
      if (topic === TOPIC.sessionState) committedStates.advance(partition, next);
    },
    onBatch: async (topic, _partition, records) => {
      for (const r of records) {
        if (!r.value) continue;
        // Both topics are keyed (topics/catalogue.ts): replies by gateway id, states by session id.
        // A record meant for another gateway, or a state nothing here watches, is not decoded: every
        // gateway reads every record of both topics, and a state's decode costs ~9 µs (PERFORMANCE.md).
        // States are kept as bytes, for a read of a session this gateway has not seen yet.
        const key = r.key?.toString();
        if (topic === TOPIC.sessionState && key) committedStates.take(key, r.value);
        if (topic === TOPIC.gatewayReplies ? key !== gatewayId : !key || !listeners.has(key)) continue;
        try {
          if (topic === TOPIC.gatewayReplies) {
            const reply = deps.codecs.gatewayReply.decode(r.value);
            if (reply.gatewayId !== gatewayId) continue;
            if (reply.session) noteReplied(reply.session);
            const waiter = pending.get(reply.correlationId);
            if (!waiter) continue;
            pending.delete(reply.correlationId);
            clearTimeout(waiter.timer);
            waiter.resolve(reply);
          } else {
            const state = deps.codecs.sessionState.decode(r.value);
            for (const listener of listeners.get(state.session.id) ?? []) listener(state);
          }
        } catch (err) {
          deps.log.error({ err, topic, offset: r.offset.toString() }, "undecodable record skipped");
        }
      }
    },
  });

  /**
   * Sends one command that carries `replyTo`, and waits (bounded) for the reply matching it. One
   * promise, returned to the caller, settles for every outcome: the reply, the deadline, or the
   * send's failure. The deadline runs from the call, so a send still retrying against a broker that
   * went away rejects this promise and nothing else (no second promise is left to reject unawaited),
   * and the send's own late failure only finds its waiter gone.
   */
  function request(topic: string, key: string, value: (replyTo: ReplyTo) => Buffer): Promise<GatewayReply> {
    const correlationId = randomUUID();
    return new Promise<GatewayReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(correlationId);
        reject(new ReplyTimeoutError("the owner of the command did not answer in time"));
      }, deps.replyTimeoutMs);
      pending.set(correlationId, { resolve, timer });
      let encoded: Buffer;
      try {
        encoded = value({ gatewayId, correlationId });
      } catch (err) {
        settleFailed(correlationId, err, reject);
        return;
      }
      producer.send(topic, [{ key, value: encoded }]).then(
        () => {},
        (err: unknown) => settleFailed(correlationId, err, reject),
      );
    });
  }

  /** Fails a request whose send failed, unless its reply or its deadline already settled it. */
  function settleFailed(correlationId: string, err: unknown, reject: (err: unknown) => void): void {
    const waiter = pending.get(correlationId);
    if (!waiter) return;
    clearTimeout(waiter.timer);
    pending.delete(correlationId);
    reject(err);
  }

  return {
    commands: requestPort(
      { request },
      TOPIC.sessionCommands,
      (command: SessionCommand) => command.data.sessionId,
      deps.codecs.sessionCommand,
    ),
    live: {
      subscribe(sessionId, listener) {
        let set = listeners.get(sessionId);
        if (!set) {
          set = new Set();
          listeners.set(sessionId, set);
        }
        set.add(listener);
        return () => {
          set.delete(listener);
          if (set.size === 0) listeners.delete(sessionId);
        };
      },
    },
    request,
    lastReplied: (id) => replied.get(id),
    committedStates,
    async start() {
      await producer.connect();
      await admin.connect();
      // A state committed before this gateway started may not be in Cassandra yet (the projector
      // behind): the last `recentStates` records of session.state are read before the gateway
      // serves, so a read of any session that changed lately finds its newest state here.
      const offsets = await stateOffsets();
      const lookback = BigInt(Math.ceil(deps.recentStates / Math.max(1, offsets.length)));
      const ends = new Map<number, bigint>();
      for (const { partition, start, end } of offsets) {
        const from = end - lookback > start ? end - lookback : start;
        stateStarts.set(partition, from);
        if (from < end) ends.set(partition, end);
        else committedStates.advance(partition, end);
      }
      await consumer.start();
      await ready;
      if (!(await committedStates.caughtUp(ends, CATCH_UP_MS)))
        deps.log.warn(
          { waitedMs: CATCH_UP_MS },
          "session.state not read up to its end at start: reads may be older",
        );
    },
    async stop() {
      for (const w of pending.values()) clearTimeout(w.timer);
      pending.clear();
      await consumer.stop();
      await producer.disconnect();
      await admin.disconnect();
    },
  };
}

/**
 * An entity's commands over the bus's request/reply: each is keyed by its entity's id and written
 * with the reply address, and the owning actor answers on gateway.replies.
 */
export function requestPort<Command extends { metadata: { replyTo: ReplyTo | null } }>(
  bus: Pick<GatewayBus, "request">,
  topic: string,
  keyOf: (command: Command) => string,
  codec: { encode(command: Command): Buffer },
): { send(command: Command): Promise<GatewayReply> } {
  return {
    send: (command) =>
      bus.request(topic, keyOf(command), (replyTo) =>
        codec.encode({ ...command, metadata: { ...command.metadata, replyTo } }),
      ),
  };
}
