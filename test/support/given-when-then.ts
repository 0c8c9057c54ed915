import { expect } from "vitest";
import {
  evolve,
  initialState,
  type RejectionCode,
  type SessionCommand,
  type SessionEvent,
  type SessionState,
} from "../../src/domain/index.ts";
import { testDecide } from "./money.ts";

/**
 * Decider specifications in Emmett's style (`DeciderSpecification.for`):
 *
 *   given(...history).when(command).then(...events)     accepted with exactly these events
 *   given(...history).when(command).thenNothing()       accepted, no events (already done)
 *   given(...history).when(command).thenRejects(code)   refused with this rejection code
 *   ....then(...).thenState({ status: "detected" })      and the state the history plus new events fold to
 *
 * The history is folded with evolve() from the initial state; decide() runs when an assertion is made.
 */
export interface Decider<Command, Event, State, Code extends string> {
  decide(
    command: Command,
    state: State,
  ): { ok: true; events: Event[] } | { ok: false; rejection: { code: Code } };
  evolve(state: State, event: Event): State;
  initialState(): State;
}

/** A predicate that returns false (or throws, e.g. through expect) fails; a partial is matched with toMatchObject. */
export type StateExpectation<State> =
  | ((state: State) => unknown)
  | (State extends object ? Partial<State> : never);

export interface StateAssertion<State> {
  thenState(expected: StateExpectation<State>): void;
}

export interface Then<Event, State, Code extends string> extends StateAssertion<State> {
  then(...expected: Event[]): StateAssertion<State>;
  thenNothing(): StateAssertion<State>;
  thenRejects(code: Code): void;
}

export function deciderSpec<Command, Event, State, Code extends string>(
  decider: Decider<Command, Event, State, Code>,
) {
  return (...history: Event[]) => ({
    when(command: Command): Then<Event, State, Code> {
      const before = history.reduce(decider.evolve, decider.initialState());
      const accepted = (): Event[] => {
        const decision = decider.decide(command, before);
        if (!decision.ok)
          expect.fail(`expected the command to be accepted, it was rejected: ${decision.rejection.code}`);
        return decision.events;
      };
      const stateAfter = (events: Event[]): StateAssertion<State> => ({
        thenState(expected) {
          const state = events.reduce(decider.evolve, before);
          if (typeof expected === "function") {
            expect(expected(state), "state predicate").not.toBe(false);
          } else {
            expect(state).toMatchObject(expected);
          }
        },
      });
      return {
        // biome-ignore lint/suspicious/noThenProperty: the spec reads given().when().then(); a spec is never awaited
        then(...expected) {
          const events = accepted();
          expect(events).toEqual(expected);
          return stateAfter(events);
        },
        thenNothing() {
          expect(accepted()).toEqual([]);
          return stateAfter([]);
        },
        thenRejects(code) {
          const decision = decider.decide(command, before);
          expect(decision.ok ? { accepted: decision.events } : decision.rejection.code).toEqual(code);
        },
        thenState(expected) {
          stateAfter(accepted()).thenState(expected);
        },
      };
    },
  });
}

/** The session decider's specification: `given(...events).when(command)...`. */
export const given = deciderSpec<SessionCommand, SessionEvent, SessionState, RejectionCode>({
  decide: (command, state) => testDecide(command, state),
  evolve,
  initialState,
});
