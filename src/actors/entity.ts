import type { Decider, VersionedEvent } from "../domain/decider.ts";

/**
 * An entity, as configuration of the generic host (Restate's `object({ name, handlers })`): its
 * decider, the co-partitioned topics it reads, the journal it appends to, where its outbox messages
 * go, its timers and how its states are snapshotted. The host knows no entity by name; a new entity
 * is a page of this, never a copy of the runtime.
 *
 * Every topic named here is keyed by the entity's id and has the same partition count, so partition
 * N of each belongs to the same host (co-partitioning).
 */
export interface EntityDefinition<Command, Event extends VersionedEvent, State, Message> {
  /** Short name: logs, metrics, snapshot rows ("session"). */
  name: string;
  /** The consumer group of the hosts; also the prefix of the per-partition transactional ids. */
  group: string;
  decider: Decider<Command, Event, State, Message>;
  /** The id of the entity a command is for (the record key it arrived under). */
  commandKey: (command: Command) => string;
  eventKey: (event: Event) => string;
  /** The id of an existing entity's state (snapshots hold states only). */
  stateKey: (state: State) => string;
  /** Input topics and how a record's value becomes a command; a value that cannot be read throws. */
  inputs: Array<{ topic: string; toCommand: (value: Buffer) => Command }>;
  /** The journal: every event, keyed by entity id, kept forever. */
  journal: {
    topic: string;
    encode: (event: Event) => Buffer;
    /** Reads back what this host wrote (its encoder checked it): checks may be skipped. */
    decode: (value: Buffer) => Event;
  };
  /**
   * Where each outbox message goes, given the entity's state after the command that sent it (a
   * reply carries it). `copartitioned` keeps the record in the entity's partition number.
   */
  outbox: {
    topics: string[];
    route: (message: Message, state: State) => OutboxRecord;
  };
  /**
   * The entity's changelog (optional): each state a transaction changes is written here, keyed by
   * entity id in the entity's partition, in the same transaction as its events. A reader of this
   * topic sees a state exactly when its events are committed, so the write path needs no projection
   * to be read back (docs/DESIGN.md, "The write path's critical path").
   */
  changelog?: {
    topic: string;
    encode: (state: State) => Buffer;
  };
  /**
   * Timers: when a state is due, the host sends `command` to its own input (`topic`), so the due
   * time lives in the state and survives restarts.
   */
  timers?: {
    topic: string;
    /** Unix ms at which the state needs its timer command, or null. */
    dueAt: (state: State) => number | null;
    command: (state: State, now: number) => Command;
    encode: (command: Command) => Buffer;
  };
  /** One state as text for snapshots (bigint-safe); snapshots are an optimisation only. */
  snapshot: {
    encode: (state: State) => string;
    decode: (text: string) => State;
  };
}

export interface OutboxRecord {
  topic: string;
  key: string;
  value: Buffer;
  copartitioned?: boolean;
}

/** Any entity, for code that holds several. */
// biome-ignore lint/suspicious/noExplicitAny: the host is generic over every entity's types
export type AnyEntity = EntityDefinition<any, any, any, any>;
