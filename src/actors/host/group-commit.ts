import type { VersionedEvent } from "../../domain/decider.ts";
import type { InputBatch } from "../../kafka/partitioned-consumer.ts";
import { type OutgoingMessage, TransactionFailedError } from "../../kafka/transactions.ts";
import type { PartitionActor, Step } from "../partition-actor.ts";
import type { SnapshotStore } from "../snapshots.ts";
import type { Input } from "./input.ts";
import type { HostScope, Owned, Pending } from "./owned.ts";
import { mergeFirstOffsets, type Recover, takePending } from "./recovery.ts";

/** What the group commit writes besides the journal, and when it stops taking input. */
export interface GroupCommitOptions<Command, Event, State> {
  input: Input<Command>;
  recover: Recover<Command, Event, State>;
  snapshots: SnapshotStore<State>;
  /** Events between two snapshots of a partition. */
  snapshotEvery: number;
  /** Input records a partition may hold decided but not committed before its input waits. */
  maxPending: number;
  deadLetterTopic: string;
}

/**
 * A partition decides each fetched batch at once and adds its output to the partition's next
 * transaction; one transaction runs per partition at a time and takes everything decided while the
 * previous one ran, so a burst shares one transaction. States change only once it commits.
 */
export function createGroupCommit<Command, Event extends VersionedEvent, State, Message>(
  scope: HostScope<Command, Event, State, Message>,
  opts: GroupCommitOptions<Command, Event, State>,
) {
  const { entity, log } = scope;
  const { input, recover } = opts;

  /**
   * Decides a fetched batch and adds its output to the partition's next transaction. Answers true
   * (the consumer may fetch on) before the transaction commits: if it fails, the partition seeks
   * back to its committed offsets and every decided batch is read again.
   */
  async function decideBatch(o: Owned<Command, Event, State>, batch: InputBatch): Promise<boolean> {
    const actor = await o.ready;
    if (o.recovering) await o.recovering;
    // Decided synchronously from here on: a recovery cannot start in the middle of it.
    if (batch.isStale() || scope.owned.get(actor.partition) !== o) return false;
    const { commands, records, parked } = input.decode(batch);
    const step = actor.step(commands);
    for (const d of step.dropped) log.warn(d, "command refused");
    for (const { index, error } of step.failed) {
      const record = records[index];
      if (record) parked.push(input.park(batch, record, error, "record could not be decided or encoded"));
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
    if (o.pending && o.pending.records >= opts.maxPending) {
      await o.flushing;
      // A failed transaction meanwhile sought the input back: this batch is read again.
      return !batch.isStale();
    }
    return true;
  }

  /** Writes the partition's pending work, one transaction at a time, until none is left. */
  async function flush(o: Owned<Command, Event, State>, actor: PartitionActor<Command, Event, State>) {
    while (o.pending && !scope.stopping && scope.owned.get(actor.partition) === o) {
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
            ...(work.parked.length > 0 ? [{ topic: opts.deadLetterTopic, messages: work.parked }] : []),
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
    if (o.sinceSnapshot < Math.max(opts.snapshotEvery, actor.states.size) || o.snapshotting) return;
    o.snapshotting = true;
    o.sinceSnapshot = 0;
    // In the background: committed states are never changed in place (evolve copies), and save()
    // copies the list at once, so the partition moves on while the chunks are written.
    void opts.snapshots
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

  return { decideBatch };
}

/** Outbox records grouped by topic; co-partitioned ones stay in the entity's partition number. */
function outboxSends<Event, State>(outbox: Step<Event, State>["outbox"], partition: number) {
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
