import type { VersionedEvent } from "../../domain/decider.ts";
import type { PlainProducer } from "../../kafka/at-least-once.ts";
import type { HostScope, Owned } from "./owned.ts";

/** A timer command not applied after this long is sent again (it may have been refused, e.g. a skewed clock). */
const TIMER_RESEND_MS = 30_000;

/**
 * Timers: due entities get their timer command through the partition's own input, so it takes the
 * same transactional path as any command and survives a restart (due times are part of the state).
 */
export function createTimers<Command, Event extends VersionedEvent, State, Message>(
  scope: HostScope<Command, Event, State, Message>,
  producer: PlainProducer,
) {
  const { entity, now } = scope;

  return async function fireTimers() {
    const timers = entity.timers;
    if (!timers) return;
    const at = now();
    const messages: Array<{ key: string; value: Buffer }> = [];
    const sent: Array<{ o: Owned<Command, Event, State>; id: string }> = [];
    for (const o of scope.owned.values()) {
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
      await producer.send(timers.topic, messages);
    } catch (err) {
      // Not sent: the next tick must ask again, not believe the commands are on their way.
      for (const s of sent) s.o.timersSent.delete(s.id);
      throw err;
    }
  };
}
