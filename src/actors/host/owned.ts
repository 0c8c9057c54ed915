import type { VersionedEvent } from "../../domain/decider.ts";
import type { KafkaClient } from "../../kafka/client.ts";
import type { OutgoingMessage, PartitionTransactor } from "../../kafka/transactions.ts";
import type { Logger } from "../../logging.ts";
import type { EntityDefinition } from "../entity.ts";
import type { PartitionActor, Step } from "../partition-actor.ts";
import type { Linger } from "./linger.ts";

/**
 * What every phase of one host reads: the entity, its clients and the partitions this member owns.
 * One object, shared by reference, so a partition revoked by the wiring or a stop begun there is
 * seen at once by a restore, a transaction loop or a timer tick.
 */
export interface HostScope<Command, Event extends VersionedEvent, State, Message> {
  entity: EntityDefinition<Command, Event, State, Message>;
  kafka: KafkaClient;
  log: Logger;
  now: () => number;
  owned: Map<number, Owned<Command, Event, State>>;
  /** Set once stop() began: no transaction, restore retry or recovery goes on after it. */
  stopping: boolean;
}

/** Input decided but not yet in a transaction: what the next transaction of the partition writes. */
export interface Pending<Event, State> {
  steps: Array<Step<Event, State>>;
  /** Per input topic: the offset after the last record decided, and the first one (to seek back to). */
  offsets: Map<string, { first: bigint; next: bigint }>;
  records: number;
  /** Input records that failed for good, as dead-letter records: parked in the same transaction. */
  parked: OutgoingMessage[];
}

/** A partition this member owns, from its assignment until it is revoked or the host stops. */
export interface Owned<Command, Event, State> {
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

/** Runs `fn` after the partition's earlier work (false when the partition is not ours). */
export async function withPartition<C, E, S, T>(
  owned: Map<number, Owned<C, E, S>>,
  partition: number,
  fn: (o: Owned<C, E, S>) => Promise<T>,
): Promise<T | false> {
  const o = owned.get(partition);
  if (!o) return false;
  const run = o.lock.then(() => fn(o));
  o.lock = run.catch(() => {});
  return run;
}
