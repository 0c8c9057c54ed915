import { TOPIC } from "../../topics/catalogue.ts";
import { BURNER_FEED_GROUP } from "../chains/burner-feed.ts";
import { EXECUTOR_GROUP } from "../executor/executor.ts";
import type { ReadModels } from "../projections/read-model-control.ts";
import { WEBHOOKS_GROUP } from "../webhooks/worker.ts";
import { ENTITY_MODULES } from "./entity-modules/list.ts";
import type { RoleName, Shared } from "./shared.ts";

/** A consumer group of a role and the topics it reads: what the lag tool measures. */
export interface RoleGroup {
  role: RoleName;
  group: string;
  topics: string[];
}

/**
 * Every consumer group this configuration runs, by role. The gateways' own groups (one per process,
 * over session.state and gateway.replies, read from the end) are left out: they never owe anything
 * to the journal, and a stopped gateway's group would show as lag forever.
 */
export function roleGroups(shared: Pick<Shared, "config" | "codecs">, models: ReadModels): RoleGroup[] {
  const enabled = ENTITY_MODULES.filter((m) => m.enabled(shared.config));
  const entities = enabled.map((m) => ({ module: m, entity: m.entity(shared) }));
  return [
    ...entities.map(({ entity }) => ({
      role: "actors" as const,
      group: entity.group,
      topics: entity.inputs.map((i) => i.topic),
    })),
    ...entities.flatMap(({ module, entity }) =>
      module.projection
        .groups(models)
        .map((group) => ({ role: "projector" as const, group, topics: [entity.journal.topic] })),
    ),
    { role: "indexer", group: BURNER_FEED_GROUP, topics: [TOPIC.sessionEvents] },
    { role: "executor", group: EXECUTOR_GROUP, topics: [TOPIC.executorCommands] },
    { role: "webhooks", group: WEBHOOKS_GROUP, topics: [TOPIC.webhookEvents] },
  ];
}
