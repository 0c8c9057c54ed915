import { TOPIC } from "../../../topics/catalogue.ts";
import { startLinkProjector } from "../../entities/link-runtime.ts";
import { startMerchantProjector } from "../../entities/merchant-runtime.ts";
import { startSubscriptionProjector } from "../../entities/subscription-runtime.ts";
import { waitForGroupCaughtUp } from "../../kafka/topics.ts";
import { createProjector, PROJECTOR_GROUP } from "../../projections/projector.ts";
import { createSessionReadModel } from "../../projections/read-model.ts";
import { CATCH_UP_TIMEOUT_MS, type RoleModule } from "../shared.ts";

/** session.events -> the Cassandra read model and session.state. */
export const projectorRole: RoleModule = {
  name: "projector",
  async start(shared, log) {
    const projector = createProjector({
      kafka: shared.kafka,
      readModel: createSessionReadModel(shared.cassandra),
      log,
    });
    await projector.start();
    // Up means caught up: reads served right after start see everything journaled before it.
    const caughtUp = await waitForGroupCaughtUp(shared.kafka, {
      groupId: PROJECTOR_GROUP,
      topic: TOPIC.sessionEvents,
      timeoutMs: CATCH_UP_TIMEOUT_MS,
    });
    const merchants = await startMerchantProjector(shared, log, CATCH_UP_TIMEOUT_MS);
    const subscriptions = await startSubscriptionProjector(shared, log, CATCH_UP_TIMEOUT_MS);
    const links = await startLinkProjector(shared, log, CATCH_UP_TIMEOUT_MS);
    return {
      role: "projector",
      summary: `${TOPIC.sessionEvents} -> Cassandra sessions + ${TOPIC.sessionState}${caughtUp ? " (caught up)" : " (still catching up)"}${merchants ? `; ${merchants.summary}` : ""}${subscriptions ? `; ${subscriptions.summary}` : ""}${links ? `; ${links.summary}` : ""}`,
      async stop() {
        await links?.stop();
        await subscriptions?.stop();
        await merchants?.stop();
        await projector.stop();
      },
    };
  },
};
