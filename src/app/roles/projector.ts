import { startEntityProjections } from "../entity-modules/start.ts";
import { CATCH_UP_TIMEOUT_MS, type RoleModule } from "../shared.ts";

/** Every entity's journal -> its read model (session.events -> Cassandra sessions first), off the write path. */
export const projectorRole: RoleModule = {
  name: "projector",
  async start(shared, log) {
    const projections = await startEntityProjections(shared, log, CATCH_UP_TIMEOUT_MS);
    return { role: "projector", summary: projections.summary, stop: projections.stop };
  },
};
