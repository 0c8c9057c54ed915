import { TOPIC } from "../../topics/catalogue.ts";
import type { SessionCommand } from "../domain/commands.ts";
import type { SessionEvent } from "../domain/events.ts";
import type { Session } from "../domain/types.ts";
import { createPlainProducer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import {
  gatewayReplyCodec,
  sessionCommandCodec,
  sessionEventCodec,
  transferObservedCodec,
} from "../kafka/codecs.ts";
import { createPartitionedConsumer, type InputBatch } from "../kafka/partitioned-consumer.ts";
import type { TransferObserved } from "../kafka/records.ts";
import { readTopic } from "../kafka/topic-reader.ts";
import {
  createPartitionTransactor,
  type PartitionTransactor,
  TransactionFailedError,
} from "../kafka/transactions.ts";
import type { Logger } from "../logging.ts";
import { createPartitionActor, type PartitionActor } from "./partition-actor.ts";
import type { SnapshotStore } from "./snapshots.ts";

export const ACTORS_GROUP = "actors";

export interface ActorHostDeps {
  kafka: KafkaClient;
  snapshots: SnapshotStore;
  log: Logger;
  /** Events between two snapshots of a partition. */
  snapshotEvery: number;
  /** How often expiry timers are checked. */
  timerIntervalMs?: number;
  now?: () => number;
}

interface Owned {
  ready: Promise<PartitionActor>;
  /** Set once restored. */
  actor: PartitionActor | null;
  transactor: PartitionTransactor;
  /** Serialises every step of one partition: both input topics share its actor and transactor. */
  lock: Promise<unknown>;
  sinceSnapshot: number;
  /** A snapshot of this partition is being written. */
  snapshotting: boolean;
  expiryRequested: Set<string>;
}

export interface ActorHost {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Partition numbers owned and restored, for health and tests. */
  owned(): number[];
  /** The session states of an owned, restored partition (read-only, for tests and diagnostics). */
  statesOf(partition: number): ReadonlyMap<string, Session> | undefined;
  /**
   * Resolves once this member has its first assignment and every partition of it is restored (or
   * `timeoutMs` passed: false). The start-up line of the role waits for it, so a service that says
   * it is up answers commands at once instead of timing out while it restores.
   */
  restored(timeoutMs: number): Promise<boolean>;
}

/**
 * Hosts the session actors of the partitions this member owns. Each input batch is one Kafka
 * transaction holding the appended session events, the gateway replies and the input offset; the
 * in-memory states change only after it commits. On assignment a partition is restored from its
 * latest snapshot plus the tail of session.events.
 */
export function createActorHost(deps: ActorHostDeps): ActorHost {
  const { kafka, log } = deps;
  const now = deps.now ?? Date.now;
  const owned = new Map<number, Owned>();
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
  const timerProducer = createPlainProducer(kafka);

  let assigned: () => void = () => {};
  const firstAssignment = new Promise<void>((resolve) => {
    assigned = resolve;
  });

  const consumer = createPartitionedConsumer(kafka, {
    groupId: ACTORS_GROUP,
    topics: [TOPIC.sessionCommands, TOPIC.chainTransfers],
    concurrency: 8,
    onAssigned: (partitions) => {
      const keep = new Set(partitions);
      for (const [p, o] of owned) {
        if (keep.has(p)) continue;
        owned.delete(p);
        void o.transactor.close();
        log.info({ partition: p }, "partition revoked");
      }
      for (const p of partitions) if (!owned.has(p)) own(p);
      assigned();
    },
    onBatch: (batch) => withPartition(batch.partition, (o) => processBatch(o, batch)),
    onCrash: (error) => log.error({ err: error }, "actor consumer crashed"),
  });

  function own(partition: number) {
    const transactor = createPartitionTransactor(kafka, `actors.p${partition}`);
    const ready = restore(partition, transactor);
    const entry: Owned = {
      transactor,
      ready,
      actor: null,
      lock: ready,
      sinceSnapshot: 0,
      snapshotting: false,
      expiryRequested: new Set(),
    };
    ready.then(
      (actor) => {
        entry.actor = actor;
      },
      (err) => log.error({ err, partition }, "restore failed"),
    );
    owned.set(partition, entry);
  }

  /** Restores until it succeeds or the partition is taken away; a broker hiccup must not orphan it. */
  async function restore(partition: number, transactor: PartitionTransactor): Promise<PartitionActor> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await restoreOnce(partition, transactor);
      } catch (err) {
        if (!owned.has(partition) || attempt >= 10) throw err;
        log.warn({ err, partition, attempt }, "restore failed; retrying");
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  async function restoreOnce(partition: number, transactor: PartitionTransactor): Promise<PartitionActor> {
    const started = now();
    // Fence first: a zombie owner's open transaction is settled before the journal is read.
    await transactor.fence();
    const snapshot = await deps.snapshots.load(partition);
    const actor = createPartitionActor(partition, snapshot ?? undefined);
    const replayed = await catchUp(actor);
    log.info(
      {
        partition,
        sessions: actor.states.size,
        fromSnapshot: snapshot !== null,
        replayed,
        ms: now() - started,
      },
      "partition restored",
    );
    return actor;
  }

  /** Reads session.events after the actor's offset up to the last stable offset and folds it in. */
  async function catchUp(actor: PartitionActor): Promise<number> {
    let count = 0;
    await readTopic(kafka, {
      topic: TOPIC.sessionEvents,
      from: new Map([[actor.partition, actor.eventsOffset + 1n]]),
      onBatch: (records) => {
        const events: SessionEvent[] = [];
        // Only actor hosts write session.events, and their encoder checked every event before
        // writing it: the checks are not repeated on the way back (as in replay).
        for (const r of records) if (r.value) events.push(sessionEventCodec.decodeTrusted(r.value));
        const last = records[records.length - 1];
        if (last) actor.replay(events, last.offset);
        count += events.length;
      },
    });
    return count;
  }

  async function withPartition<T>(partition: number, fn: (o: Owned) => Promise<T>): Promise<T | false> {
    const o = owned.get(partition);
    if (!o) return false;
    const run = o.lock.then(() => fn(o));
    o.lock = run.catch(() => {});
    return run;
  }

  async function processBatch(o: Owned, batch: InputBatch): Promise<boolean> {
    const actor = await o.ready;
    const commands = decodeInput(batch);
    const step = actor.step(commands);
    for (const d of step.dropped)
      log.warn(
        { type: d.command.type, code: d.code, sessionId: d.command.data.sessionId },
        "command refused",
      );
    try {
      const appended = await o.transactor.run({
        sends: [
          {
            topic: TOPIC.sessionEvents,
            messages: step.events.map((e) => ({
              key: e.metadata.sessionId,
              value: sessionEventCodec.encode(e),
              partition: actor.partition,
            })),
          },
          {
            topic: TOPIC.gatewayReplies,
            messages: step.replies.map((r) => ({ key: r.gatewayId, value: gatewayReplyCodec.encode(r) })),
          },
        ],
        offsets: {
          groupId: ACTORS_GROUP,
          topic: batch.topic,
          partition: batch.partition,
          nextOffset: batch.nextOffset,
        },
      });
      actor.commit(step, appended.get(`${TOPIC.sessionEvents}:${actor.partition}`));
      o.sinceSnapshot += step.events.length;
      // A snapshot rewrites every state of the partition, so it waits for at least as many new events
      // as the partition holds sessions: its cost stays proportional to the events it saves replaying.
      if (o.sinceSnapshot >= Math.max(deps.snapshotEvery, actor.states.size) && !o.snapshotting) {
        o.snapshotting = true;
        // In the background: the states are immutable objects and save() copies the list at once,
        // so the partition moves on while the chunks are written.
        void snapshot(actor, o).finally(() => {
          o.snapshotting = false;
        });
      }
      return true;
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      log.warn(
        { err: error, partition: actor.partition, topic: batch.topic },
        "transaction failed; re-reading the journal",
      );
      await recover(o, actor, batch);
      return false;
    }
  }

  /**
   * After a failed transaction. Re-initialise first: until the epoch is bumped, a commit whose
   * outcome is unknown may still land after the journal was read, and the batch would be applied
   * twice. Then the journal says whether the transaction committed: fold in whatever it holds, and
   * resume the input from the committed offset, which moved if and only if the events did. Retried
   * until done: the next batch must not step from states that may lack a commit.
   */
  async function recover(o: Owned, actor: PartitionActor, batch: InputBatch) {
    for (let attempt = 1; ; attempt++) {
      // A partition taken away meanwhile is the new owner's: re-initialising would fence it.
      if (stopping || owned.get(actor.partition) !== o) return;
      try {
        await o.transactor.fence();
        await catchUp(actor);
        const committed = await consumer.committedOffset(batch.topic, batch.partition);
        const first = batch.records[0]?.offset ?? batch.nextOffset;
        consumer.seek(batch.topic, batch.partition, committed ?? first);
        return;
      } catch (err) {
        log.warn(
          { err, partition: actor.partition, attempt },
          "recovery after a failed transaction failed; retrying",
        );
        await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  async function snapshot(actor: PartitionActor, o: Owned) {
    o.sinceSnapshot = 0;
    await deps.snapshots
      .save(actor.partition, {
        eventsOffset: actor.eventsOffset,
        states: actor.states.values(),
        count: actor.states.size,
      })
      .catch((err) =>
        log.warn(
          { err, partition: actor.partition },
          "snapshot failed (restore will read more of the journal)",
        ),
      );
  }

  function decodeInput(batch: InputBatch): SessionCommand[] {
    const commands: SessionCommand[] = [];
    for (const r of batch.records) {
      if (!r.value) continue;
      try {
        commands.push(
          batch.topic === TOPIC.chainTransfers
            ? transferCommand(transferObservedCodec.decode(r.value))
            : sessionCommandCodec.decode(r.value),
        );
      } catch (err) {
        // A record we cannot read must not stop the partition; it is logged with its position.
        log.error(
          { err, topic: batch.topic, partition: batch.partition, offset: r.offset.toString() },
          "undecodable record skipped",
        );
      }
    }
    return commands;
  }

  /** Expiry timers: due sessions get an ExpireSession command through the partition's own input. */
  async function fireTimers() {
    const nowSeconds = Math.floor(now() / 1000);
    const messages: Array<{ key: string; value: Buffer }> = [];
    const requested: Array<{ o: Owned; id: string }> = [];
    for (const o of owned.values()) {
      const actor = o.actor;
      if (!actor) continue;
      for (const id of o.expiryRequested)
        if (actor.states.get(id)?.status !== "pending") o.expiryRequested.delete(id);
      for (const id of actor.dueForExpiry(nowSeconds)) {
        if (o.expiryRequested.has(id)) continue;
        o.expiryRequested.add(id);
        requested.push({ o, id });
        const command: SessionCommand = {
          type: "ExpireSession",
          data: { sessionId: id, now: nowSeconds },
          metadata: { commandId: `expire:${id}`, issuedAt: now(), replyTo: null },
        };
        messages.push({ key: id, value: sessionCommandCodec.encode(command) });
      }
    }
    if (messages.length === 0) return;
    try {
      await timerProducer.send(TOPIC.sessionCommands, messages);
    } catch (err) {
      // Not sent: the next tick must ask again, not believe the commands are on their way.
      for (const r of requested) r.o.expiryRequested.delete(r.id);
      throw err;
    }
  }

  return {
    async start() {
      await timerProducer.connect();
      await consumer.start();
      timer = setInterval(() => {
        fireTimers().catch((err) => log.warn({ err }, "expiry timers failed; will retry"));
      }, deps.timerIntervalMs ?? 1000);
    },
    async stop() {
      stopping = true;
      if (timer) clearInterval(timer);
      await consumer.stop();
      await Promise.all([...owned.values()].map((o) => o.transactor.close()));
      owned.clear();
      await timerProducer.disconnect();
    },
    owned: () =>
      [...owned]
        .filter(([, o]) => o.actor !== null)
        .map(([p]) => p)
        .sort((a, b) => a - b),
    statesOf: (partition) => owned.get(partition)?.actor?.states,
    async restored(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const all = firstAssignment
        .then(() => Promise.allSettled([...owned.values()].map((o) => o.ready)))
        .then(() => true as const);
      try {
        return await Promise.race([all, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** An indexer record as a command; its id names the observation, so a re-published one is a retry. */
export function transferCommand(t: TransferObserved): SessionCommand {
  const metadata = {
    // observedAt tells a block that came back after a reorg from a re-published record of the same block.
    commandId: `${t.retracted ? "retract" : "record"}:${t.chainId}:${t.txHash}:${t.logIndex}:${t.blockHash}:${t.observedAt}`,
    issuedAt: t.observedAt,
    replyTo: null,
  };
  if (t.retracted) {
    return {
      type: "RetractTransfer",
      data: {
        sessionId: t.sessionId,
        chainId: t.chainId,
        txHash: t.txHash,
        logIndex: t.logIndex,
        blockHash: t.blockHash,
      },
      metadata,
    };
  }
  const { chainId, token, amount, txHash, logIndex, blockNumber, blockHash, from } = t;
  return {
    type: "RecordTransfer",
    data: {
      sessionId: t.sessionId,
      transfer: { chainId, token, amount, txHash, logIndex, blockNumber, blockHash, from },
    },
    metadata,
  };
}
