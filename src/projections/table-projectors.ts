import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import type { ReadModelControlStore } from "../store/read-model-control.ts";
import { followReadModels, type ReadModelFollower } from "./follow-read-models.ts";
import { createProjector, type Projector } from "./projector.ts";
import { createSessionReadModel } from "./read-model.ts";
import { projectedTables, projectorGroup, type ReadModels } from "./read-model-control.ts";

/**
 * The session projector over every table the control record says to write: one projector (its own
 * consumer group) per table, started when the table joins and stopped when it leaves. A table's
 * group resumes where it stopped (or where its replay stopped), so no table ever misses an event,
 * whichever process runs its projector.
 */
export interface TableProjectors {
  start(): Promise<void>;
  /** The table written first (the gateways' table), for the start-up wait. */
  active(): string;
  stop(): Promise<void>;
}

export function createTableProjectors(deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "sessionEvent">;
  cassandra: CassandraClient;
  control: Pick<ReadModelControlStore, "read">;
  pollMs: number;
  /** Row text per Cassandra batch of a table's writes (createSessionReadModel); 0: one row a request. */
  batchBytes: number;
  /** How long the projector's fetch waits on the broker for more records (createProjector). */
  fetchWaitMs: number;
  log: Logger;
}): TableProjectors {
  const running = new Map<string, Projector>();
  let follower: ReadModelFollower | null = null;

  async function sync(models: ReadModels): Promise<void> {
    const wanted = projectedTables(models);
    for (const table of wanted) {
      if (running.has(table)) continue;
      const projector = createProjector({
        kafka: deps.kafka,
        codecs: deps.codecs,
        readModel: createSessionReadModel(deps.cassandra, table, deps.batchBytes),
        groupId: projectorGroup(table),
        fetchWaitMs: deps.fetchWaitMs,
        log: deps.log.child({ table }),
      });
      await projector.start();
      running.set(table, projector);
      deps.log.info({ table, group: projectorGroup(table) }, "projecting session.events into table");
    }
    for (const [table, projector] of running) {
      if (wanted.includes(table)) continue;
      await projector.stop();
      running.delete(table);
      deps.log.info({ table }, "stopped projecting into table (retired)");
    }
  }

  return {
    async start() {
      follower = await followReadModels({
        store: deps.control,
        pollMs: deps.pollMs,
        log: deps.log,
        onChange: (next) => sync(next),
      });
    },
    active: () => follower?.current().active ?? "sessions",
    async stop() {
      await follower?.stop();
      for (const projector of running.values()) await projector.stop();
      running.clear();
    },
  };
}
