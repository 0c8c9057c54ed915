import type { Logger } from "../logging.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import type { ReadModelControlStore } from "../store/read-model-control.ts";
import { followReadModels, type ReadModelFollower } from "./follow-read-models.ts";
import { createSessionReadModel, type SessionReadModel } from "./read-model.ts";

/**
 * The gateway's sessions read model: whichever table the control record names active, switched in
 * place when it changes (within the poll interval; at once in the process that made the switch).
 * Every read goes to the table active when it starts.
 */
export interface ActiveReadModel extends SessionReadModel {
  /** Reads the control record now. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

export async function followActiveReadModel(deps: {
  cassandra: CassandraClient;
  control: Pick<ReadModelControlStore, "read">;
  pollMs: number;
  log: Logger;
}): Promise<ActiveReadModel> {
  let model: SessionReadModel = createSessionReadModel(deps.cassandra);
  const follower: ReadModelFollower = await followReadModels({
    store: deps.control,
    pollMs: deps.pollMs,
    log: deps.log,
    onChange: (next, before) => {
      if (next.active === model.table) return;
      model = createSessionReadModel(deps.cassandra, next.active);
      deps.log.info({ table: next.active, before: before.active }, "gateway reads another sessions table");
    },
  });
  return {
    get table() {
      return model.table;
    },
    get: (id) => model.get(id),
    getView: (id) => model.getView(id),
    write: (states) => model.write(states),
    ensureTable: () => model.ensureTable(),
    refresh: async () => {
      await follower.refresh();
    },
    stop: () => follower.stop(),
  };
}
