import type { VersionedEvent } from "../../domain/decider.ts";
import { BROKER_RETRY_MAX_MS } from "../../kafka/client.ts";
import type { PartitionedConsumer } from "../../kafka/partitioned-consumer.ts";
import { retry } from "../../support/retry.ts";
import type { PartitionActor } from "../partition-actor.ts";
import type { HostScope, Owned, Pending } from "./owned.ts";
import type { Restore } from "./restore.ts";

/** Brings a partition whose transaction failed back to what the journal and its offsets hold. */
export type Recover<Command, Event, State> = (
  o: Owned<Command, Event, State>,
  actor: PartitionActor<Command, Event, State>,
  firstOffsets: Map<string, bigint>,
) => Promise<void>;

/**
 * After a failed transaction. Re-initialise first: until the epoch is bumped, a commit whose
 * outcome is unknown may still land after the journal was read, and its batches would be applied
 * twice. Then the journal says whether the transaction committed: fold in whatever it holds, and
 * resume each input from its committed offset, which moved if and only if the events did. Retried
 * until done: the next batch must not be decided from states that may lack a commit.
 */
export function createRecovery<Command, Event extends VersionedEvent, State, Message>(
  scope: HostScope<Command, Event, State, Message>,
  catchUp: Restore<Command, Event, State>["catchUp"],
  input: Pick<PartitionedConsumer, "committedOffset" | "seek">,
): Recover<Command, Event, State> {
  return async (o, actor, firstOffsets) => {
    await retry(
      async () => {
        // A partition taken away meanwhile is the new owner's: re-initialising would fence it.
        if (scope.stopping || scope.owned.get(actor.partition) !== o) return;
        await o.transactor.fence();
        await catchUp(actor);
        for (const [topic, first] of firstOffsets) {
          const committed = await input.committedOffset(topic, actor.partition);
          input.seek(topic, actor.partition, committed ?? first);
        }
      },
      {
        attempts: Number.POSITIVE_INFINITY,
        baseMs: 400,
        maxMs: BROKER_RETRY_MAX_MS,
        isRetryable: () => true,
        onRetry: (err, { attempt }) =>
          scope.log.warn(
            { err, partition: actor.partition, attempt },
            "recovery after a failed transaction failed; retrying",
          ),
      },
    );
  };
}

/** The partition's pending work, now no longer pending. */
export function takePending<C, E, S>(o: Owned<C, E, S>): Pending<E, S> | null {
  const pending = o.pending;
  o.pending = null;
  return pending;
}

/** The first offset of each input topic over the failed work and what was decided after it. */
export function mergeFirstOffsets<E, S>(
  work: Pending<E, S>,
  later: Pending<E, S> | null,
): Map<string, bigint> {
  const firsts = new Map<string, bigint>();
  for (const p of later ? [work, later] : [work]) {
    for (const [topic, o] of p.offsets) {
      const known = firsts.get(topic);
      if (known === undefined || o.first < known) firsts.set(topic, o.first);
    }
  }
  return firsts;
}
