import { TOPIC } from "../../topics/catalogue.ts";
import type { VersionedEvent } from "../domain/decider.ts";
import { createPlainProducer } from "../kafka/at-least-once.ts";
import { BROKER_RETRY_MAX_MS, type KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { parkedMessage } from "../kafka/dead-letter.ts";
import { createPartitionedConsumer, type InputBatch } from "../kafka/partitioned-consumer.ts";
import { readTopic } from "../kafka/topic-reader.ts";
import {
  createPartitionTransactor,
  type OutgoingMessage,
  type PartitionTransactor,
  TransactionFailedError,
} from "../kafka/transactions.ts";
import type { Logger } from "../logging.ts";
import { retry } from "../support/retry.ts";
import type { EntityDefinition } from "./entity.ts";
import { createLinger, type Linger } from "./linger.ts";
import { createPartitionActor, type PartitionActor, type Step } from "./partition-actor.ts";
import type { SnapshotStore } from "./snapshots.ts";

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

/** Input decided but not yet in a transaction: what the next transaction of the partition writes. */
interface Pending<Event, State> {
  steps: Array<Step<Event, State>>;
  /** Per input topic: the offset after the last record decided, and the first one (to seek back to). */
  offsets: Map<string, { first: bigint; next: bigint }>;
  records: number;
  /** Input records that failed for good, as dead-letter records: parked in the same transaction. */
  parked: OutgoingMessage[];
}

interface Owned<Command, Event, State> {
  ready: Promise<PartitionActor<Command, Event, State>>;
  /** Set once restored. */
  actor: PartitionActor<Command, Event, State> | null;
  transactor: PartitionTransactor;
  /** Serialises the steps of one partition: every input topic shares its actor. */
  lock: Promise<unknown>;
  pending: Pending<Event, State> | null;
  /** The partition's transaction loop, while one runs. */
  flushing: Promise<void> | null;
  /** The wait of the loop between two transactions of a busy partition. */
  linger: Linger;
  /** Set while the partition recovers from a failed transaction: nothing is decided meanwhile. */
  recovering: Promise<void> | null;
  sinceSnapshot: number;
  /** A snapshot of this partition is being written. */
  snapshotting: boolean;
  /** Timer commands sent and not yet seen applied: entity id -> when sent (unix ms). */
  timersSent: Map<string, number>;
}

/** A timer command not applied after this long is sent again (it may have been refused, e.g. a skewed clock). */
const TIMER_RESEND_MS = 30_000;

/**
 * Input records that end a linger at once: a transaction this full gains little from more, and a
 * burst (a catch-up, the ingest benchmark) must not wait.
 */
const LINGER_FULL_AT = 100;

/**
 * Hosts one entity's actors on the partitions this member owns (Kafka Streams' exactly-once task,
 * per partition). Each partition decides its input in order against its in-memory states; the
 * events, the outbox messages and the input offsets go out in one Kafka transaction, and the states
 * change only once it commits. Transactions are group commits: one takes every batch decided while
 * the previous one of its partition ran, so a burst shares one transaction; a partition with input
 * waiting lingers up to `commitLingerMs` for more first, while a lone command waits for nothing. On
 * assignment a partition is restored from its latest snapshot plus the journal after it.
 */
export function createEntityHost<Command, Event extends VersionedEvent, State, Message>(
  entity: EntityDefinition<Command, Event, State, Message>,
  deps: EntityHostDeps<State>,
): EntityHost<State> {
  const { kafka } = deps;
  const log = deps.log.child({ entity: entity.name });
  const now = deps.now ?? Date.now;
  const maxPending = deps.maxPendingRecords ?? 5000;
  const deadLetterTopic = deps.deadLetterTopic ?? TOPIC.deadLetter;
  const inputs = new Map(entity.inputs.map((i) => [i.topic, i]));
  const owned = new Map<number, Owned<Command, Event, State>>();
  let timer: NodeJS.Timeout | null = null;
  let stopping = false;
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
    onBatch: (batch) => withPartition(batch.partition, (o) => decideBatch(o, batch)),
    onCrash: (error) => log.error({ err: error }, "actor consumer crashed"),
  });

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

  /** Restores until it succeeds or the partition is taken away; a broker hiccup must not orphan it. */
  function restore(partition: number, transactor: PartitionTransactor) {
    // Tries at most a second apart, so a broker back from a restart is used at once, and never gives
    // up while the partition is ours: a restore abandoned after a fixed count (30 tries, ~20 s, until
    // 5 December) left a partition owned but never served after a longer broker or Cassandra outage,
    // since only a new assignment restores again. Readiness reports the partition as restoring.
    return retry(() => restoreOnce(partition, transactor), {
      attempts: Number.POSITIVE_INFINITY,
      baseMs: 400,
      maxMs: BROKER_RETRY_MAX_MS,
      // Whatever failed (a broker or Cassandra hiccup), a partition still ours is worth another try.
      isRetryable: () => owned.has(partition) && !stopping,
      onRetry: (err, { attempt }) => log.warn({ err, partition, attempt }, "restore failed; retrying"),
    });
  }

  async function restoreOnce(partition: number, transactor: PartitionTransactor) {
    const started = now();
    // Fence first: a zombie owner's open transaction is settled before the journal is read.
    await transactor.fence();
    const snapshot = await deps.snapshots.load(partition);
    const actor = createPartitionActor(entity, partition, snapshot ?? undefined);
    const replayed = await catchUp(actor);
    log.info(
      {
        partition,
        entities: actor.states.size,
        fromSnapshot: snapshot !== null,
        replayed,
        ms: now() - started,
      },
      "partition restored",
    );
    return actor;
  }

  /** Reads the journal after the actor's offset up to the last stable offset and folds it in. */
  async function catchUp(actor: PartitionActor<Command, Event, State>): Promise<number> {
    let count = 0;
    await readTopic(kafka, {
      topic: entity.journal.topic,
      from: new Map([[actor.partition, actor.eventsOffset + 1n]]),
      onBatch: (records) => {
        const events: Event[] = [];
        for (const r of records) if (r.value) events.push(entity.journal.decode(r.value));
        const last = records[records.length - 1];
        if (last) actor.replay(events, last.offset);
        count += events.length;
      },
    });
    return count;
  }

  async function withPartition<T>(
    partition: number,
    fn: (o: Owned<Command, Event, State>) => Promise<T>,
  ): Promise<T | false> {
    const o = owned.get(partition);
    if (!o) return false;
    const run = o.lock.then(() => fn(o));
    o.lock = run.catch(() => {});
    return run;
  }

  /**
   * Decides a fetched batch and adds its output to the partition's next transaction. Answers true
   * (the consumer may fetch on) before the transaction commits: if it fails, the partition seeks
   * back to its committed offsets and every decided batch is read again.
   */
  async function decideBatch(o: Owned<Command, Event, State>, batch: InputBatch): Promise<boolean> {
    const actor = await o.ready;
    if (o.recovering) await o.recovering;
    // Decided synchronously from here on: a recovery cannot start in the middle of it.
    if (batch.isStale() || owned.get(actor.partition) !== o) return false;
    const { commands, records, parked } = decodeInput(batch);
    const step = actor.step(commands);
    for (const d of step.dropped) log.warn(d, "command refused");
    for (const { index, error } of step.failed) {
      const record = records[index];
      if (record) parked.push(park(batch, record, error, "record could not be decided or encoded"));
    }
    const pending: Pending<Event, State> = o.pending ?? {
      steps: [],
      offsets: new Map(),
      records: 0,
      parked: [],
    };
    o.pending = pending;
    pending.steps.push(step);
    pending.parked.push(...parked);
    pending.records += batch.records.length;
    const first = batch.records[0]?.offset ?? batch.nextOffset;
    const seen = pending.offsets.get(batch.topic);
    pending.offsets.set(batch.topic, { first: seen?.first ?? first, next: batch.nextOffset });
    if (!o.flushing) {
      o.flushing = flush(o, actor).finally(() => {
        o.flushing = null;
      });
    } else {
      o.linger.offer(pending.records);
    }
    // Backpressure: a partition whose transaction is slow stops taking input until it commits.
    if (o.pending && o.pending.records >= maxPending) {
      await o.flushing;
      // A failed transaction meanwhile sought the input back: this batch is read again.
      return !batch.isStale();
    }
    return true;
  }

  /** Writes the partition's pending work, one transaction at a time, until none is left. */
  async function flush(o: Owned<Command, Event, State>, actor: PartitionActor<Command, Event, State>) {
    while (o.pending && !stopping && owned.get(actor.partition) === o) {
      const work = o.pending;
      o.pending = null;
      const events = work.steps.flatMap((s) => s.events);
      const journal = work.steps.flatMap((s) => s.journal);
      const outbox = work.steps.flatMap((s) => s.outbox);
      const began = performance.now();
      try {
        const appended = await o.transactor.run({
          sends: [
            {
              topic: entity.journal.topic,
              messages: journal.map((r) => ({ ...r, partition: actor.partition })),
            },
            ...outboxSends(outbox, actor.partition),
            ...changelogSends(work.steps, actor.partition),
            ...(work.parked.length > 0 ? [{ topic: deadLetterTopic, messages: work.parked }] : []),
          ],
          offsets: {
            groupId: entity.group,
            partition: actor.partition,
            topics: [...work.offsets].map(([topic, o]) => ({ topic, nextOffset: o.next })),
          },
        });
        const journalEnd = appended.get(`${entity.journal.topic}:${actor.partition}`);
        for (const step of work.steps) actor.commit(step, undefined);
        if (journalEnd !== undefined) actor.eventsOffset = journalEnd;
        o.sinceSnapshot += events.length;
        maybeSnapshot(o, actor);
        // Input arrived while this transaction ran: the partition is busy, let more join the next.
        if (o.pending) await o.linger.wait(performance.now() - began);
      } catch (error) {
        // Anything else is a bug, not a broker's mood (a record that cannot be encoded was parked when
        // it was decided); it is recovered from the same way rather than left to crash the process.
        if (error instanceof TransactionFailedError) {
          log.warn({ err: error, partition: actor.partition }, "transaction failed; re-reading the journal");
        } else {
          log.error(
            { err: error, partition: actor.partition },
            "could not write the decided work; re-reading the journal",
          );
        }
        const dropped = takePending(o);
        actor.discardStaged();
        const recovery = recover(o, actor, mergeFirstOffsets(work, dropped));
        o.recovering = recovery.finally(() => {
          o.recovering = null;
        });
        await o.recovering;
        return;
      }
    }
  }

  /** Outbox records grouped by topic; co-partitioned ones stay in the entity's partition number. */
  function outboxSends(outbox: Step<Event, State>["outbox"], partition: number) {
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const r of outbox) {
      let messages = byTopic.get(r.topic);
      if (!messages) {
        messages = [];
        byTopic.set(r.topic, messages);
      }
      messages.push(
        r.copartitioned ? { key: r.key, value: r.value, partition } : { key: r.key, value: r.value },
      );
    }
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  /**
   * The newest state of each entity the work changed, on the entity's changelog in its partition:
   * a later step's state of the same entity replaces an earlier one (the topic is compacted anyway).
   */
  function changelogSends(steps: Array<Step<Event, State>>, partition: number) {
    if (!entity.changelog) return [];
    const newest = new Map<string, Buffer>();
    for (const step of steps) for (const [key, value] of step.changelog) newest.set(key, value);
    if (newest.size === 0) return [];
    const messages = [...newest].map(([key, value]) => ({ key, value, partition }));
    return [{ topic: entity.changelog.topic, messages }];
  }

  function maybeSnapshot(o: Owned<Command, Event, State>, actor: PartitionActor<Command, Event, State>) {
    // A snapshot rewrites every state of the partition, so it waits for at least as many new events
    // as the partition holds entities: its cost stays proportional to the events it saves replaying.
    if (o.sinceSnapshot < Math.max(deps.snapshotEvery, actor.states.size) || o.snapshotting) return;
    o.snapshotting = true;
    o.sinceSnapshot = 0;
    // In the background: committed states are never changed in place (evolve copies), and save()
    // copies the list at once, so the partition moves on while the chunks are written.
    void deps.snapshots
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
      )
      .finally(() => {
        o.snapshotting = false;
      });
  }

  /**
   * After a failed transaction. Re-initialise first: until the epoch is bumped, a commit whose
   * outcome is unknown may still land after the journal was read, and its batches would be applied
   * twice. Then the journal says whether the transaction committed: fold in whatever it holds, and
   * resume each input from its committed offset, which moved if and only if the events did. Retried
   * until done: the next batch must not be decided from states that may lack a commit.
   */
  async function recover(
    o: Owned<Command, Event, State>,
    actor: PartitionActor<Command, Event, State>,
    firstOffsets: Map<string, bigint>,
  ) {
    await retry(
      async () => {
        // A partition taken away meanwhile is the new owner's: re-initialising would fence it.
        if (stopping || owned.get(actor.partition) !== o) return;
        await o.transactor.fence();
        await catchUp(actor);
        for (const [topic, first] of firstOffsets) {
          const committed = await consumer.committedOffset(topic, actor.partition);
          consumer.seek(topic, actor.partition, committed ?? first);
        }
      },
      {
        attempts: Number.POSITIVE_INFINITY,
        baseMs: 400,
        maxMs: BROKER_RETRY_MAX_MS,
        isRetryable: () => true,
        onRetry: (err, { attempt }) =>
          log.warn(
            { err, partition: actor.partition, attempt },
            "recovery after a failed transaction failed; retrying",
          ),
      },
    );
  }

  /** The batch's commands, each with its record; a record that cannot be read is parked instead. */
  function decodeInput(batch: InputBatch) {
    const input = inputs.get(batch.topic);
    const commands: Command[] = [];
    const records: InputBatch["records"] = [];
    const parked: OutgoingMessage[] = [];
    if (!input) return { commands, records, parked };
    for (const r of batch.records) {
      if (!r.value) continue;
      try {
        commands.push(input.toCommand(r.value));
        records.push(r);
      } catch (err) {
        parked.push(park(batch, r, err, "record could not be read"));
      }
    }
    return { commands, records, parked };
  }

  /** A record that fails for good is parked on the dead-letter topic, so the partition goes on. */
  function park(batch: InputBatch, record: InputBatch["records"][number], error: unknown, what: string) {
    log.error(
      { err: error, topic: batch.topic, partition: batch.partition, offset: record.offset.toString() },
      `${what}: parked on ${deadLetterTopic}`,
    );
    return parkedMessage(deps.codecs.deadLetter, entity.group, batch.topic, record, error, now());
  }

  /** Timers: due entities get their timer command through the partition's own input. */
  async function fireTimers() {
    const timers = entity.timers;
    if (!timers) return;
    const at = now();
    const messages: Array<{ key: string; value: Buffer }> = [];
    const sent: Array<{ o: Owned<Command, Event, State>; id: string }> = [];
    for (const o of owned.values()) {
      const actor = o.actor;
      if (!actor) continue;
      for (const [id, sentAt] of o.timersSent) {
        const state = actor.states.get(id);
        const dueAt = state === undefined ? null : timers.dueAt(state);
        if (dueAt === null || dueAt > at || at - sentAt > TIMER_RESEND_MS) o.timersSent.delete(id);
      }
      for (const id of actor.due(at)) {
        const state = actor.states.get(id);
        if (state === undefined || o.timersSent.has(id)) continue;
        o.timersSent.set(id, at);
        sent.push({ o, id });
        messages.push({ key: id, value: timers.encode(timers.command(state, at)) });
      }
    }
    if (messages.length === 0) return;
    try {
      await timerProducer.send(timers.topic, messages);
    } catch (err) {
      // Not sent: the next tick must ask again, not believe the commands are on their way.
      for (const s of sent) s.o.timersSent.delete(s.id);
      throw err;
    }
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
      stopping = true;
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

/** The partition's pending work, now no longer pending. */
function takePending<C, E, S>(o: Owned<C, E, S>): Pending<E, S> | null {
  const pending = o.pending;
  o.pending = null;
  return pending;
}

/** The first offset of each input topic over the failed work and what was decided after it. */
function mergeFirstOffsets<E, S>(work: Pending<E, S>, later: Pending<E, S> | null): Map<string, bigint> {
  const firsts = new Map<string, bigint>();
  for (const p of later ? [work, later] : [work]) {
    for (const [topic, o] of p.offsets) {
      const known = firsts.get(topic);
      if (known === undefined || o.first < known) firsts.set(topic, o.first);
    }
  }
  return firsts;
}
