import { TOPIC } from "../../topics/catalogue.ts";
import type { Built, DeadLetterView, Journal, LagView, ReadModelsView, Redriven } from "../api/operator.ts";
import type { KafkaClient, KafkaSettings } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { groupLag } from "../kafka/consumer-lag.ts";
import { AlreadyRedriven, listParked, NotParked, redrive } from "../kafka/dead-letter.ts";
import { groupHasMembers, setGroupOffsets } from "../kafka/group-offsets.ts";
import { readKeySince } from "../kafka/key-history.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { ActiveReadModel } from "../projections/active-read-model.ts";
import {
  activate,
  canBuild,
  follow,
  projectorGroup,
  type ReadModels,
  retire,
  type Transition,
} from "../projections/read-model-control.ts";
import { rebuildReadModel } from "../projections/replay.ts";
import type { CassandraSettings } from "../store/cassandra.ts";
import type { ReadModelControlStore } from "../store/read-model-control.ts";
import { TerminalError } from "../support/errors.ts";
import { deadLetterView, journalEntry, lagView } from "./views.ts";

/** What the operator may be told no, each a registered gateway error (src/gateway/errors.ts). */
export type OperatorRefusal =
  | "session_not_found"
  | "not_parked"
  | "already_redriven"
  | "read_model_exists"
  | "read_model_not_found"
  | "read_model_active"
  | "read_model_busy"
  | "read_model_behind";

export class OperatorRefused extends TerminalError<OperatorRefusal> {
  override name = "OperatorRefused";
}

/** The operator's tools (docs/OPERATIONS.md), as the /v1/operator/* routes call them. */
export interface Operator {
  journal(sessionId: string): Promise<Journal>;
  deadLetters(topic?: string): Promise<DeadLetterView[]>;
  redrive(where: { topic: string; partition: number; offset: number }): Promise<Redriven>;
  lag(): Promise<LagView>;
  readModels(): Promise<ReadModelsView>;
  build(table: string): Promise<Built>;
  switchTo(table: string): Promise<ReadModelsView>;
  retire(table: string): Promise<ReadModelsView>;
}

/**
 * A session's records carry the broker's append time, its state the command's issue time, from
 * another machine's clock: the journal is read from this long before the session was created.
 */
const CLOCK_SKEW_MS = 5 * 60_000;
/** How long a switch waits for the table's projector to reach the journal's end before refusing. */
const SWITCH_CATCH_UP_MS = 10_000;
/** How long a retire waits for the table's projectors to leave (they poll every READ_MODEL_POLL_MS). */
const RETIRE_WAIT_MS = 10_000;
/** Two operators changing the control record at once: each change is retried this often over the other. */
const CHANGE_TRIES = 3;

export function createOperator(deps: {
  kafka: KafkaClient;
  /** Where the servers are, for the replay's own connections (its threads make their own clients). */
  settings: { kafka: Omit<KafkaSettings, "log">; cassandra: CassandraSettings };
  codecs: Pick<Codecs, "sessionEvent" | "deadLetter">;
  readModel: Pick<ActiveReadModel, "get" | "table" | "refresh">;
  control: ReadModelControlStore;
  groups: (models: ReadModels) => Array<{ role: string; group: string; topics: string[] }>;
}): Operator {
  let building: string | null = null;

  const view = (m: ReadModels): ReadModelsView => ({ ...m, read_by_this_gateway: deps.readModel.table });

  /** Applies a transition over the record as read, again if another change came first. */
  async function change(transition: (m: ReadModels) => Transition): Promise<ReadModels> {
    for (let i = 0; i < CHANGE_TRIES; i++) {
      const before = await deps.control.read();
      const t = transition(before);
      if (!t.ok) throw new OperatorRefused(t.code, `${t.code.replaceAll("_", " ")}`);
      if (t.next === before || (await deps.control.write(before, t.next))) {
        await deps.readModel.refresh();
        return t.next;
      }
    }
    throw new OperatorRefused("read_model_busy", "the read-model record kept changing under this change");
  }

  return {
    async journal(sessionId) {
      const stored = await deps.readModel.get(sessionId);
      if (!stored) throw new OperatorRefused("session_not_found", "no such session");
      const records = await readKeySince(deps.kafka, {
        topic: TOPIC.sessionEvents,
        key: sessionId,
        since: stored.state.createdAt - CLOCK_SKEW_MS,
      });
      const events = records.map((r) => {
        try {
          return journalEntry(r, deps.codecs.sessionEvent.decode(r.value ?? Buffer.alloc(0)));
        } catch (err) {
          return journalEntry(r, { error: err instanceof Error ? err.message : String(err) });
        }
      });
      return { session_id: sessionId, events };
    },

    async deadLetters(topic) {
      const parked = await listParked(deps.kafka, deps.codecs.deadLetter);
      return parked.filter((p) => !topic || p.letter.topic === topic).map(deadLetterView);
    },

    async redrive(where) {
      try {
        const to = await redrive(deps.kafka, deps.codecs.deadLetter, where);
        return { ...where, redriven_to: to };
      } catch (err) {
        if (err instanceof NotParked) throw new OperatorRefused("not_parked", err.shortMessage);
        if (err instanceof AlreadyRedriven) throw new OperatorRefused("already_redriven", err.shortMessage);
        throw err;
      }
    },

    async lag() {
      const groups = deps.groups(await deps.control.read());
      const measured = [];
      for (const g of groups) measured.push({ ...g, topics: await groupLag(deps.kafka, g.group, g.topics) });
      return lagView(measured);
    },

    async readModels() {
      return view(await deps.control.read());
    },

    async build(table) {
      // One replay at a time per gateway: it reads the whole journal and writes every session.
      if (building !== null)
        throw new OperatorRefused("read_model_busy", `a rebuild of ${building} is running`);
      building = table;
      try {
        const models = await deps.control.read();
        const refused = canBuild(models, table);
        if (refused) throw new OperatorRefused(refused, `${table} is written already`);
        // A new name, or a table this service retired: never one it does not own.
        if (!models.retired.includes(table) && (await deps.control.tableExists(table)))
          throw new OperatorRefused("read_model_exists", `a table named ${table} exists already`);
        const group = projectorGroup(table);
        // A retired table's projectors leave within a poll; its offsets can only be set once they did.
        if (await groupHasMembers(deps.kafka, group))
          throw new OperatorRefused("read_model_busy", `projector group ${group} still has members`);
        const started = Date.now();
        const result = await rebuildReadModel({ ...deps.settings, table }, { workers: 1, resume: false });
        // The table's projector starts where the replay stopped: nothing between is lost or applied twice.
        await setGroupOffsets(deps.kafka, group, TOPIC.sessionEvents, result.until);
        const next = await change((m) => follow(m, table));
        return {
          table,
          sessions: result.sessions,
          events: result.events,
          ms: Date.now() - started,
          replayed_to: [...result.until]
            .sort(([a], [b]) => a - b)
            .map(([partition, offset]) => ({
              partition,
              offset: Number(offset),
            })),
          read_models: view(next),
        };
      } finally {
        building = null;
      }
    },

    async switchTo(table) {
      const models = await deps.control.read();
      if (models.active !== table) {
        if (!models.following.includes(table))
          throw new OperatorRefused("read_model_not_found", `${table} is not a followed read model`);
        const caughtUp = await waitForGroupCaughtUp(deps.kafka, {
          groupId: projectorGroup(table),
          topic: TOPIC.sessionEvents,
          timeoutMs: SWITCH_CATCH_UP_MS,
        });
        if (!caughtUp)
          throw new OperatorRefused(
            "read_model_behind",
            `${table}'s projector has not reached the journal's end`,
          );
      }
      return view(await change((m) => activate(m, table)));
    },

    async retire(table) {
      const next = await change((m) => retire(m, table));
      // The projectors stop writing the table at their next poll: answer once they did, so a caller
      // that goes on (a rebuild of it, a check of its rows) finds it still.
      const group = projectorGroup(table);
      const deadline = Date.now() + RETIRE_WAIT_MS;
      while ((await groupHasMembers(deps.kafka, group)) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      return view(next);
    },
  };
}
