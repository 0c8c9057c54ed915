import type { SessionCommand } from "../domain/commands.ts";
import { decide } from "../domain/decide.ts";
import type { SessionEvent } from "../domain/events.ts";
import { evolve } from "../domain/evolve.ts";
import { REJECTIONS } from "../domain/rejections.ts";
import type { Session } from "../domain/types.ts";
import { sessionView } from "../domain/view.ts";
import type { GatewayReply, SessionStateRecord } from "../kafka/records.ts";

/** What processing a batch of commands produced, not yet committed. */
export interface Step {
  events: SessionEvent[];
  replies: GatewayReply[];
  /** Commands the core refused that nobody waits for (indexer input for an unknown session...). */
  dropped: Array<{ command: SessionCommand; code: string }>;
  /** New states of the sessions the batch changed; applied only once the transaction commits. */
  changed: Map<string, Session>;
}

/**
 * The sessions of one partition, in memory. Runs decide/evolve over a batch of commands against a
 * staging overlay, so a batch whose transaction fails leaves the states untouched.
 */
export interface PartitionActor {
  readonly partition: number;
  /** The last session.events offset reflected in the states (-1: none). */
  eventsOffset: bigint;
  readonly states: Map<string, Session>;
  step(commands: SessionCommand[]): Step;
  commit(step: Step, eventsOffset: bigint | undefined): void;
  /** Folds events read back from session.events (restore, or catch-up after an unknown outcome). */
  replay(events: SessionEvent[], lastOffset: bigint): void;
  /** Pending sessions whose expiry time has come (unix seconds). */
  dueForExpiry(nowSeconds: number): string[];
}

export function createPartitionActor(
  partition: number,
  initial?: { eventsOffset: bigint; states: Session[] },
) {
  const states = new Map<string, Session>();
  for (const s of initial?.states ?? []) states.set(s.id, s);

  const actor: PartitionActor = {
    partition,
    eventsOffset: initial?.eventsOffset ?? -1n,
    states,
    step(commands) {
      const step: Step = { events: [], replies: [], dropped: [], changed: new Map() };
      for (const command of commands) {
        const id = command.data.sessionId;
        const before = step.changed.get(id) ?? states.get(id) ?? null;
        const decision = decide(command, before);
        let after = before;
        if (decision.ok) {
          for (const event of decision.events) after = evolve(after, event);
          step.events.push(...decision.events);
          if (after && decision.events.length > 0) step.changed.set(id, after);
        } else if (!command.metadata.replyTo) {
          step.dropped.push({ command, code: decision.rejection.code });
        }
        const replyTo = command.metadata.replyTo;
        if (!replyTo) continue;
        const record: SessionStateRecord | null = after
          ? { version: after.version, session: sessionView(after) }
          : null;
        step.replies.push(
          decision.ok
            ? { ...replyTo, status: 200, code: null, message: null, session: record }
            : {
                ...replyTo,
                status: REJECTIONS[decision.rejection.code].status,
                code: decision.rejection.code,
                message: decision.rejection.message,
                session: record,
              },
        );
      }
      return step;
    },
    commit(step, eventsOffset) {
      for (const [id, s] of step.changed) states.set(id, s);
      if (eventsOffset !== undefined) actor.eventsOffset = eventsOffset;
    },
    replay(events, lastOffset) {
      for (const event of events) {
        const id = event.metadata.sessionId;
        const before = states.get(id) ?? null;
        // The journal may hold an event twice only if a snapshot overlaps it; versions make it idempotent.
        if (before && event.metadata.version <= before.version) continue;
        const after = evolve(before, event);
        if (after) states.set(id, after);
      }
      if (lastOffset > actor.eventsOffset) actor.eventsOffset = lastOffset;
    },
    dueForExpiry(nowSeconds) {
      const due: string[] = [];
      for (const s of states.values())
        if (s.status === "pending" && s.expiresAt <= nowSeconds) due.push(s.id);
      return due;
    },
  };
  return actor;
}
