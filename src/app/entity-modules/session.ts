import { TOPIC } from "../../../topics/catalogue.ts";
import { sessionEntityWith } from "../../entities/session.ts";
import { waitForGroupCaughtUp } from "../../kafka/topics.ts";
import { createProjector, PROJECTOR_GROUP } from "../../projections/projector.ts";
import { createSessionReadModel } from "../../projections/read-model.ts";
import type { EntityModule } from "./module.ts";

/**
 * The session: always on. Its gateway share is the gateway itself (the session routes over the bus),
 * so it has no `gateway` part; the indexer's transfers reach it through chain.transfers.
 */
export const sessionModule: EntityModule = {
  name: "session",
  enabled: () => true,
  // Under the operator's limit on relayer-paid work.
  entity: ({ config, codecs }) => sessionEntityWith(codecs, { gasBudget: BigInt(config.SESSION_GAS_BUDGET) }),
  ownedGauge: {
    name: "settlement_actor_partitions_owned",
    help: "Session partitions this process owns and has restored",
  },
  projection: {
    writes: `Cassandra sessions + ${TOPIC.sessionState}`,
    create(shared, log) {
      const projector = createProjector({
        kafka: shared.kafka,
        codecs: shared.codecs,
        readModel: createSessionReadModel(shared.cassandra),
        log,
      });
      return {
        async start(timeoutMs) {
          await projector.start();
          // Up means caught up: reads served right after start see everything journaled before it.
          return waitForGroupCaughtUp(shared.kafka, {
            groupId: PROJECTOR_GROUP,
            topic: TOPIC.sessionEvents,
            timeoutMs,
          });
        },
        stop: () => projector.stop(),
      };
    },
  },
};
