import { TOPIC } from "../../../topics/catalogue.ts";
import { chainMoney } from "../../chains/money.ts";
import { sessionEntityWith } from "../../entities/session.ts";
import { waitForGroupCaughtUp } from "../../kafka/topics.ts";
import { projectedTables, projectorGroup } from "../../projections/read-model-control.ts";
import { createTableProjectors } from "../../projections/table-projectors.ts";
import { readModelControlStore } from "../../store/read-model-control.ts";
import type { EntityModule } from "./module.ts";

/**
 * The session: always on. Its gateway share is the gateway itself (the session routes over the bus),
 * so it has no `gateway` part; the indexer's transfers reach it through chain.transfers.
 */
export const sessionModule: EntityModule = {
  name: "session",
  enabled: () => true,
  // Under the operator's limit on relayer-paid work, and the money facts of every configured chain.
  entity: ({ config, codecs }) =>
    sessionEntityWith(codecs, {
      relayerBudget: BigInt(config.SESSION_RELAYER_BUDGET),
      chains: chainMoney(config.chains ?? []),
    }),
  ownedGauge: {
    name: "settlement_actor_partitions_owned",
    help: "Session partitions this process owns and has restored",
  },
  projection: {
    writes: "Cassandra sessions",
    // One projector group per table built or served (docs/OPERATIONS.md, "Read models").
    groups: (models) => projectedTables(models).map(projectorGroup),
    create(shared, log) {
      // One projector per table the read-model control record names (docs/OPERATIONS.md, "Read models").
      const projector = createTableProjectors({
        kafka: shared.kafka,
        codecs: shared.codecs,
        cassandra: shared.cassandra,
        control: readModelControlStore(shared.cassandra),
        pollMs: shared.config.READ_MODEL_POLL_MS,
        batchBytes: shared.config.PROJECTOR_BATCH_BYTES,
        fetchWaitMs: shared.config.PROJECTOR_FETCH_WAIT_MS,
        log,
      });
      return {
        async start(timeoutMs) {
          await projector.start();
          // Up means caught up: reads served right after start see everything journaled before it.
          return waitForGroupCaughtUp(shared.kafka, {
            groupId: projectorGroup(projector.active()),
            topic: TOPIC.sessionEvents,
            timeoutMs,
          });
        },
        stop: () => projector.stop(),
      };
    },
  },
};
