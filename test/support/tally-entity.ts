import type { EntityDefinition } from "../../src/actors/entity.ts";
import type { Decider, Decision } from "../../src/domain/decider.ts";

/**
 * A second entity for the generic host, test-only: a tally that is opened with a threshold and a
 * closing time, counts what is added to it, tells its notices topic once when it reaches the
 * threshold and once when its timer closes it. Small, but it uses every part of the host an
 * entity can: three kinds of command, an outbox, a timer due from the state, snapshots. Its records
 * are JSON: the codec is the entity's own business, not the host's.
 */

interface Meta {
  commandId: string;
  issuedAt: number;
}
export type TallyCommand =
  | { type: "Open"; data: { id: string; threshold: number; closeAt: number }; metadata: Meta }
  | { type: "Add"; data: { id: string; amount: number }; metadata: Meta }
  | { type: "Close"; data: { id: string; now: number }; metadata: Meta };

interface EventMeta {
  id: string;
  version: number;
  commandId: string;
}
export type TallyEvent =
  | { type: "Opened"; data: { threshold: number; closeAt: number }; metadata: EventMeta }
  | { type: "Added"; data: { amount: number }; metadata: EventMeta }
  | { type: "Closed"; data: Record<string, never>; metadata: EventMeta };

export interface Tally {
  id: string;
  version: number;
  threshold: number;
  closeAt: number;
  total: number;
  closed: boolean;
  recent: string[];
}
export type TallyState = Tally | null;

export interface TallyNotice {
  id: string;
  kind: "reached" | "closed";
  total: number;
}

type Code = "exists" | "not_found" | "closed" | "not_due";
const refuse = (code: Code): Decision<TallyEvent, TallyNotice, Code> => ({
  ok: false,
  rejection: { code, message: code },
  outbox: [],
});

function evolve(state: TallyState, event: TallyEvent): TallyState {
  const m = event.metadata;
  const recent = [...(state?.recent ?? []), m.commandId].slice(-16);
  switch (event.type) {
    case "Opened":
      return { id: m.id, version: m.version, total: 0, closed: false, recent, ...event.data };
    case "Added":
      return state && { ...state, version: m.version, recent, total: state.total + event.data.amount };
    case "Closed":
      return state && { ...state, version: m.version, recent, closed: true };
  }
}

function decide(command: TallyCommand, state: TallyState): Decision<TallyEvent, TallyNotice, Code> {
  if (state?.recent.includes(command.metadata.commandId)) return { ok: true, events: [], outbox: [] };
  const meta = (): EventMeta => ({
    id: command.data.id,
    version: (state?.version ?? 0) + 1,
    commandId: command.metadata.commandId,
  });
  switch (command.type) {
    case "Open": {
      if (state) return refuse("exists");
      const { threshold, closeAt } = command.data;
      return {
        ok: true,
        events: [{ type: "Opened", data: { threshold, closeAt }, metadata: meta() }],
        outbox: [],
      };
    }
    case "Add": {
      if (!state) return refuse("not_found");
      if (state.closed) return refuse("closed");
      const total = state.total + command.data.amount;
      const reached = state.total < state.threshold && total >= state.threshold;
      return {
        ok: true,
        events: [{ type: "Added", data: { amount: command.data.amount }, metadata: meta() }],
        outbox: reached ? [{ id: state.id, kind: "reached", total }] : [],
      };
    }
    case "Close": {
      if (!state) return refuse("not_found");
      if (state.closed) return { ok: true, events: [], outbox: [] };
      if (command.data.now < state.closeAt) return refuse("not_due");
      return {
        ok: true,
        events: [{ type: "Closed", data: {}, metadata: meta() }],
        outbox: [{ id: state.id, kind: "closed", total: state.total }],
      };
    }
  }
}

export const tallyDecider: Decider<TallyCommand, TallyEvent, TallyState, TallyNotice, Code> = {
  initialState: () => null,
  decide,
  evolve,
  versionOf: (s) => s?.version ?? 0,
};

export interface TallyTopics {
  commands: string;
  events: string;
  notices: string;
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v));
const parse = <T>(b: Buffer): T => JSON.parse(b.toString("utf8")) as T;

/** The tally as configuration of the generic host, on its own topics and snapshot rows. */
export function tallyEntity(
  name: string,
  topics: TallyTopics,
): EntityDefinition<TallyCommand, TallyEvent, TallyState, TallyNotice> {
  return {
    name,
    group: `${name}.actors`,
    decider: tallyDecider,
    commandKey: (c) => c.data.id,
    eventKey: (e) => e.metadata.id,
    stateKey: (s) => (s as Tally).id,
    inputs: [{ topic: topics.commands, toCommand: (v) => parse<TallyCommand>(v) }],
    journal: { topic: topics.events, encode: json, decode: (v) => parse<TallyEvent>(v) },
    outbox: {
      topics: [topics.notices],
      route: (notice) => ({
        topic: topics.notices,
        key: notice.id,
        value: json(notice),
        copartitioned: true,
      }),
    },
    timers: {
      topic: topics.commands,
      dueAt: (s) => (s && !s.closed ? s.closeAt : null),
      command: (s, now) => ({
        type: "Close",
        data: { id: (s as Tally).id, now },
        metadata: { commandId: `close:${(s as Tally).id}`, issuedAt: now },
      }),
      encode: json,
    },
    snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as TallyState },
  };
}
