import { TOPIC } from "../../topics/catalogue.ts";
import { BURNER_FEED_GROUP } from "../chains/burner-feed.ts";
import { EXECUTOR_GROUP } from "../executor/executor.ts";
import { LINK_PROJECTOR_GROUP } from "../projections/link-projection.ts";
import { MERCHANT_PROJECTOR_GROUP } from "../projections/merchant-projection.ts";
import { projectedTables, projectorGroup, type ReadModels } from "../projections/read-model-control.ts";
import { SUBSCRIPTION_PROJECTOR_GROUP } from "../projections/subscription-projection.ts";
import { WEBHOOKS_GROUP } from "../webhooks/worker.ts";
import { ENTITY_MODULES } from "./entity-modules/list.ts";
import type { RoleName, Shared } from "./shared.ts";

/** A consumer group of a role and the topics it reads: what the lag tool measures. */
export interface RoleGroup {
  role: RoleName;
  group: string;
  topics: string[];
}

/** The entity projections' groups by module name; the session's is one per read-model table. */
const ENTITY_PROJECTOR_GROUPS: Record<string, string> = {
  merchant: MERCHANT_PROJECTOR_GROUP,
  subscription: SUBSCRIPTION_PROJECTOR_GROUP,
  link: LINK_PROJECTOR_GROUP,
};

/**
 * Every consumer group this configuration runs, by role. The gateways' own groups (one per process,
 * over session.state and gateway.replies, read from the end) are left out: they never owe anything
 * to the journal, and a stopped gateway's group would show as lag forever.
 */
export function roleGroups(shared: Pick<Shared, "config" | "codecs">, models: ReadModels): RoleGroup[] {
  const enabled = ENTITY_MODULES.filter((m) => m.enabled(shared.config));
  const entities = enabled.map((m) => ({ module: m.name, entity: m.entity(shared) }));
  return [
    ...entities.map(({ entity }) => ({
      role: "actors" as const,
      group: entity.group,
      topics: entity.inputs.map((i) => i.topic),
    })),
    ...projectedTables(models).map((table) => ({
      role: "projector" as const,
      group: projectorGroup(table),
      topics: [TOPIC.sessionEvents],
    })),
    ...entities.flatMap(({ module, entity }) => {
      const group = ENTITY_PROJECTOR_GROUPS[module];
      return group ? [{ role: "projector" as const, group, topics: [entity.journal.topic] }] : [];
    }),
    { role: "indexer", group: BURNER_FEED_GROUP, topics: [TOPIC.sessionEvents] },
    { role: "executor", group: EXECUTOR_GROUP, topics: [TOPIC.executorCommands] },
    { role: "webhooks", group: WEBHOOKS_GROUP, topics: [TOPIC.webhookEvents] },
  ];
}
