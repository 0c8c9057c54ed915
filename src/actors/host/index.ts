import { TOPIC } from "../../../topics/catalogue.ts";
import type { VersionedEvent } from "../../domain/decider.ts";
import { createPlainProducer } from "../../kafka/at-least-once.ts";
import type { KafkaClient } from "../../kafka/client.ts";
import type { Codecs } from "../../kafka/codecs.ts";
import { createPartitionedConsumer } from "../../kafka/partitioned-consumer.ts";
import { createPartitionTransactor } from "../../kafka/transactions.ts";
import type { Logger } from "../../logging.ts";
import type { EntityDefinition } from "../entity.ts";
import type { SnapshotStore } from "../snapshots.ts";
import { createGroupCommit } from "./group-commit.ts";
import { createInput } from "./input.ts";
import { createLinger } from "./linger.ts";
import { type HostScope, type Owned, withPartition } from "./owned.ts";
import { createRecovery } from "./recovery.ts";
import { createRestore } from "./restore.ts";
import { createTimers } from "./timers.ts";

export interface EntityHostDeps<State> {
  kafka: KafkaClient;
  /** The dead-letter record's codec: an input record that fails for good is parked with it. */
  codecs: Pick<Codecs, "deadLetter">;
  snapshots: SnapshotStore<State>;
  log: Logger;
  /** Events between two snapshots of a partition. */
  snapshotEvery: number;
  /** How often timers are checked. */
  timerIntervalMs?: number;
  /**
   * Input records a partition may hold decided but not yet committed while its transaction runs;
   * past it, the partition's input waits for the commit (memory stays bounded under a burst).
   */
  maxPendingRecords?: number;
  /**
   * How long a partition whose input arrived while its transaction ran waits for more before the
   * next one (linger.ts); 0 begins it at once. An idle partition never waits.
   */
  commitLingerMs?: number;
  /**
   * The most a busy partition lingers when its last transaction took longer than `commitLingerMs`
   * (linger.ts: the wait follows the transaction's length under load). At or below
   * `commitLingerMs`: a fixed wait.
   */
  commitLingerMaxMs?: number;
  /** Where input records that fail for good are parked (default: the deadletter topic). */
  deadLetterTopic?: string;
  now?: () => number;
}

export interface EntityHost<State> {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Partition numbers owned and restored, for health and tests. */
  owned(): number[];
  /**
   * Partition numbers assigned but not yet restored: at the start, and after any later rebalance
   * that gives this member a partition (readiness waits for them: src/ops/readiness.ts).
   */
  restoring(): number[];
  /** The committed states of an owned, restored partition (read-only, for tests and diagnostics). */
  statesOf(partition: number): ReadonlyMap<string, State> | undefined;
  /**
   * Resolves once this member has its first assignment and every partition of it is restored (or
   * `timeoutMs` passed: false). The start-up line of the role waits for it, so a service that says
   * it is up answers commands at once instead of timing out while it restores.
   */
  restored(timeoutMs: number): Promise<boolean>;
}

/**
 * Input records that end a linger at once: a transaction this full gains little from more, and a
 * burst (a catch-up, the ingest benchmark) must not wait.
 */
const LINGER_FULL_AT = 100;

/**
 * Hosts one entity's actors on the partitions this member owns (Kafka Streams' exactly-once task,
 * per partition). Each partition decides its input in order against its in-memory states; the
 * events, the outbox messages and the input offsets go out in one Kafka transaction, and the states
 * change only once it commits (group-commit.ts). On assignment a partition is restored from its
 * latest snapshot plus the journal after it (restore.ts); a failed transaction is recovered from
 * the journal (recovery.ts); due timers send their commands through the entity's input (timers.ts).
 * This file wires the phases to the consumer group and answers what the partitions are doing.
 */
export function createEntityHost<Command, Event extends VersionedEvent, State, Message>(
  entity: EntityDefinition<Command, Event, State, Message>,
  deps: EntityHostDeps<State>,
): EntityHost<State> {
  const { kafka } = deps;
  const scope: HostScope<Command, Event, State, Message> = {
    entity,
    kafka,
    log: deps.log.child({ entity: entity.name }),
    now: deps.now ?? Date.now,
    owned: new Map<number, Owned<Command, Event, State>>(),
    stopping: false,
  };
  const { log, owned } = scope;
  let timer: NodeJS.Timeout | null = null;
  const timerProducer = createPlainProducer(kafka);

  let assigned: () => void = () => {};
  const firstAssignment = new Promise<void>((resolve) => {
    assigned = resolve;
  });

  const consumer = createPartitionedConsumer(kafka, {
    groupId: entity.group,
    topics: entity.inputs.map((i) => i.topic),
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
    // The consumer calls back only once started, after every phase below exists.
    onBatch: (batch) => withPartition(owned, batch.partition, (o) => groupCommit.decideBatch(o, batch)),
    onCrash: (error) => log.error({ err: error }, "actor consumer crashed"),
  });

  const deadLetterTopic = deps.deadLetterTopic ?? TOPIC.deadLetter;
  const { restore, catchUp } = createRestore(scope, deps.snapshots);
  const groupCommit = createGroupCommit(scope, {
    input: createInput(scope, { topic: deadLetterTopic, codec: deps.codecs.deadLetter }),
    recover: createRecovery(scope, catchUp, consumer),
    snapshots: deps.snapshots,
    snapshotEvery: deps.snapshotEvery,
    maxPending: deps.maxPendingRecords ?? 5000,
    deadLetterTopic,
  });
  const fireTimers = createTimers(scope, timerProducer);

  function own(partition: number) {
    const transactor = createPartitionTransactor(kafka, `${entity.group}.p${partition}`);
    const ready = restore(partition, transactor);
    const entry: Owned<Command, Event, State> = {
      transactor,
      ready,
      actor: null,
      lock: ready,
      pending: null,
      flushing: null,
      linger: createLinger(deps.commitLingerMs ?? 0, LINGER_FULL_AT, deps.commitLingerMaxMs),
      recovering: null,
      sinceSnapshot: 0,
      snapshotting: false,
      timersSent: new Map(),
    };
    ready.then(
      (actor) => {
        entry.actor = actor;
      },
      (err) => log.error({ err, partition }, "restore failed"),
    );
    owned.set(partition, entry);
  }

  return {
    async start() {
      await timerProducer.connect();
      await consumer.start();
      timer = setInterval(() => {
        fireTimers().catch((err) => log.warn({ err }, "timers failed; will retry"));
      }, deps.timerIntervalMs ?? 1000);
    },
    async stop() {
      scope.stopping = true;
      if (timer) clearInterval(timer);
      for (const o of owned.values()) o.linger.release();
      await consumer.stop();
      // Work decided but not committed is dropped: the next owner reads it again from the offsets.
      await Promise.all([...owned.values()].map((o) => o.flushing?.catch(() => {})));
      await Promise.all([...owned.values()].map((o) => o.transactor.close()));
      owned.clear();
      await timerProducer.disconnect();
    },
    owned: () =>
      [...owned]
        .filter(([, o]) => o.actor !== null)
        .map(([p]) => p)
        .sort((a, b) => a - b),
    restoring: () =>
      [...owned]
        .filter(([, o]) => o.actor === null)
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
