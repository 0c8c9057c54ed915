/**
 * The shape every entity's pure core takes (Emmett's and Chassaing's decider): no I/O, no clock, no
 * randomness; time and ids arrive on the command. The runtime (src/actors/) hosts any decider and
 * knows none by name.
 */

/** Why a command was refused: a stable code (the gateway maps it to an HTTP status) and a message. */
export interface Refusal<Code extends string = string> {
  code: Code;
  message: string;
}

/**
 * What a command does: the events to append and the messages to send (the outbox: commands to other
 * topics, webhook events, the reply to whoever waits). The host writes both in one Kafka transaction
 * with the input offsets, so an event and what it triggers exist together or not at all. A refused
 * command appends nothing but may still send (its reply). An accepted command with no events means
 * "already done" (a retry): the reply answers with the current state.
 */
export type Decision<Event, Message, Code extends string = string> =
  | { ok: true; events: Event[]; outbox: Message[] }
  | { ok: false; rejection: Refusal<Code>; outbox: Message[] };

/** Events carry the entity's version after them: 1 for the first, +1 per event, without gaps. */
export interface VersionedEvent {
  metadata: { version: number };
}

export interface Decider<
  Command,
  Event extends VersionedEvent,
  State,
  Message,
  Code extends string = string,
> {
  /** The state before the first event (for sessions: null, "not created"). */
  initialState: () => State;
  decide: (command: Command, state: State) => Decision<Event, Message, Code>;
  /** Applies one event, leaving `state` unchanged: the host keeps the old state until its transaction commits. */
  evolve: (state: State, event: Event) => State;
  /**
   * evolve for a fold that holds the only reference to its state (a replay): may change `state` itself.
   * Defaults to evolve.
   */
  evolveInPlace?: (state: State, event: Event) => State;
  /** The version a state reflects: the last applied event's version, 0 for the initial state. */
  versionOf: (state: State) => number;
}

/**
 * The one rule for an applied event, shared by restore, the projector and replay: an event at or
 * below the state's version is already in it (a snapshot that overlaps the journal, a re-delivered
 * batch) and changes nothing.
 */
export const isApplied = <E extends VersionedEvent, S>(
  decider: Pick<Decider<unknown, E, S, unknown>, "versionOf">,
  state: S,
  event: E,
): boolean => event.metadata.version <= decider.versionOf(state);

/**
 * Folds one event into a state with the applied-version rule. Returns `state` itself (the same
 * reference) when the event was applied before; otherwise a new state (evolve never changes its
 * argument). A fold that owns its states uses isApplied and evolveInPlace instead.
 */
export function foldEvent<E extends VersionedEvent, S>(
  decider: Pick<Decider<unknown, E, S, unknown>, "versionOf" | "evolve">,
  state: S,
  event: E,
): S {
  return isApplied(decider, state, event) ? state : decider.evolve(state, event);
}
