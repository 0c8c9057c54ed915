import { foldEvent } from "../domain/decider.ts";
import { isRetryable } from "../support/errors.ts";
import type { EntityDefinition, OutboxRecord } from "./entity.ts";

/** What deciding a run of commands produced, not yet committed. */
export interface Step<Event, State> {
  events: Event[];
  /** The events as journal records, encoded at decision time so a record that cannot be is caught there. */
  journal: Array<{ key: string; value: Buffer }>;
  /** The outbox messages of the decisions, routed to their topics. */
  outbox: OutboxRecord[];
  /** Changelog records (EntityDefinition.changelog) by entity id: the newest state of each. */
  changelog: Map<string, Buffer>;
  /** Commands the core refused that nobody waits for (indexer input for an unknown session...). */
  dropped: Array<{ key: string; type: string; code: string }>;
  /** New states of the entities the commands changed; applied only once the transaction commits. */
  changed: Map<string, State>;
  /**
   * Commands (by index in the input) whose decision or encoding threw a terminal error: each left
   * no event, message or state behind, and the host parks its input record.
   */
  failed: Array<{ index: number; error: unknown }>;
}

/**
 * The entities of one partition, in memory. Commands are decided against `staged` over the
 * committed states: several steps may wait for their transactions at once (group commit), each
 * seeing the ones before it. A committed step moves its states into `states`; a failed transaction
 * discards everything staged.
 */
export interface PartitionActor<Command, Event, State> {
  readonly partition: number;
  /** The last journal offset reflected in `states` (-1: none). */
  eventsOffset: bigint;
  /** Committed states: only what the journal holds. */
  readonly states: Map<string, State>;
  step(commands: Command[]): Step<Event, State>;
  commit(step: Step<Event, State>, eventsOffset: bigint | undefined): void;
  /** Forgets every staged, uncommitted state (its transaction failed). */
  discardStaged(): void;
  /** Folds events read back from the journal (restore, or catch-up after an unknown outcome). */
  replay(events: Event[], lastOffset: bigint): void;
  /** Ids of committed states whose timer is due at `now` (unix ms). */
  due(now: number): string[];
}

export function createPartitionActor<
  Command,
  Event extends { metadata: { version: number } },
  State,
  Message,
>(
  entity: EntityDefinition<Command, Event, State, Message>,
  partition: number,
  initial?: { eventsOffset: bigint; states: State[] },
): PartitionActor<Command, Event, State> {
  const { decider } = entity;
  const states = new Map<string, State>();
  const staged = new Map<string, State>();
  const exists = (s: State) => decider.versionOf(s) > 0;

  /** One command, all or nothing: everything that can throw runs before the step or `staged` change. */
  function decideOne(command: Command, step: Step<Event, State>) {
    const key = entity.commandKey(command);
    const before = staged.get(key) ?? states.get(key) ?? decider.initialState();
    const decision = decider.decide(command, before);
    let after = before;
    if (decision.ok) for (const event of decision.events) after = decider.evolve(after, event);
    const journal = decision.ok
      ? decision.events.map((e) => ({ key: entity.eventKey(e), value: entity.journal.encode(e) }))
      : [];
    const outbox = decision.outbox.map((message) => entity.outbox.route(message, after));
    const changed = decision.ok && decision.events.length > 0 && exists(after);
    const changelog = changed && entity.changelog ? entity.changelog.encode(after) : null;
    if (decision.ok) {
      step.events.push(...decision.events);
      step.journal.push(...journal);
      if (changed) {
        step.changed.set(key, after);
        staged.set(key, after);
      }
      if (changelog) step.changelog.set(key, changelog);
    } else if (decision.outbox.length === 0) {
      const type = (command as { type?: unknown }).type;
      step.dropped.push({ key, type: String(type ?? "command"), code: decision.rejection.code });
    }
    step.outbox.push(...outbox);
  }

  const actor: PartitionActor<Command, Event, State> = {
    partition,
    eventsOffset: initial?.eventsOffset ?? -1n,
    states,
    step(commands) {
      const step: Step<Event, State> = {
        events: [],
        journal: [],
        outbox: [],
        changelog: new Map(),
        dropped: [],
        changed: new Map(),
        failed: [],
      };
      commands.forEach((command, index) => {
        try {
          decideOne(command, step);
        } catch (error) {
          // The decider and the codecs are pure: the same command fails the same way every time, so
          // retrying it would stop the partition for good. A retryable error is not theirs: it is
          // rethrown and the batch is read again.
          if (isRetryable(error)) throw error;
          step.failed.push({ index, error });
        }
      });
      return step;
    },
    commit(step, eventsOffset) {
      for (const [id, s] of step.changed) {
        states.set(id, s);
        // A later step still waiting on its transaction may have moved the entity on: keep that.
        if (staged.get(id) === s) staged.delete(id);
      }
      if (eventsOffset !== undefined) actor.eventsOffset = eventsOffset;
    },
    discardStaged() {
      staged.clear();
    },
    replay(events, lastOffset) {
      for (const event of events) {
        const id = entity.eventKey(event);
        const before = states.get(id) ?? decider.initialState();
        const after = foldEvent(decider, before, event);
        if (after !== before && exists(after)) states.set(id, after);
      }
      if (lastOffset > actor.eventsOffset) actor.eventsOffset = lastOffset;
    },
    due(now) {
      const timers = entity.timers;
      if (!timers) return [];
      const due: string[] = [];
      for (const [id, s] of states) {
        const at = timers.dueAt(s);
        if (at !== null && at <= now) due.push(id);
      }
      return due;
    },
  };
  for (const s of initial?.states ?? []) states.set(entity.stateKey(s), s);
  return actor;
}
