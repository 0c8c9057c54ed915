import type { VersionedEvent } from "../../domain/decider.ts";
import { BROKER_RETRY_MAX_MS } from "../../kafka/client.ts";
import { readTopic } from "../../kafka/topic-reader.ts";
import type { PartitionTransactor } from "../../kafka/transactions.ts";
import { retry } from "../../support/retry.ts";
import { createPartitionActor, type PartitionActor } from "../partition-actor.ts";
import type { SnapshotStore } from "../snapshots.ts";
import type { HostScope } from "./owned.ts";

/** A partition's states as the journal holds them: on assignment, and after a failed transaction. */
export interface Restore<Command, Event, State> {
  /** Restores until it succeeds or the partition is taken away; a broker hiccup must not orphan it. */
  restore(partition: number, transactor: PartitionTransactor): Promise<PartitionActor<Command, Event, State>>;
  /** Reads the journal after the actor's offset up to the last stable offset and folds it in. */
  catchUp(actor: PartitionActor<Command, Event, State>): Promise<number>;
}

/** Restore from the latest snapshot plus the journal after it (snapshots only save reading). */
export function createRestore<Command, Event extends VersionedEvent, State, Message>(
  scope: HostScope<Command, Event, State, Message>,
  snapshots: SnapshotStore<State>,
): Restore<Command, Event, State> {
  const { entity, kafka, log, now } = scope;

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
      isRetryable: () => scope.owned.has(partition) && !scope.stopping,
      onRetry: (err, { attempt }) => log.warn({ err, partition, attempt }, "restore failed; retrying"),
    });
  }

  async function restoreOnce(partition: number, transactor: PartitionTransactor) {
    const started = now();
    // Fence first: a zombie owner's open transaction is settled before the journal is read.
    await transactor.fence();
    const snapshot = await snapshots.load(partition);
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

  return { restore, catchUp };
}
