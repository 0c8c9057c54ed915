import type { AnyEntity } from "../../actors/entity.ts";
import type { Config } from "../../config.ts";
import type { EntityAreaDeps } from "../../gateway/app.ts";
import type { CommandPort } from "../../gateway/ports.ts";
import type { GatewayBus } from "../../kafka/gateway-bus.ts";
import type { Logger } from "../../logging.ts";
import type { SessionReadModel } from "../../projections/read-model.ts";
import type { ReadModels } from "../../projections/read-model-control.ts";
import type { Shared } from "../shared.ts";

/** A part of a role that one entity module started: one line for the start-up summary, and its stop. */
export interface RunningPart {
  summary: string;
  /** Why the part cannot do its work yet (still restoring), or null (src/ops/readiness.ts). */
  notReady?(): string | null;
  stop(): Promise<void>;
}

/** An entity's journal -> its read model, caught up before the projector role reports itself up. */
export interface EntityProjection {
  /** Resolves once caught up with the journal as it was at start (or after `timeoutMs`: false). */
  start(timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** What a module's gateway part builds over: the gateway's bus and the session commands it sends. */
export interface GatewayContext {
  shared: Pick<Shared, "config" | "cassandra" | "chains" | "codecs">;
  /** Each module sends its entity's commands through the bus's request/reply (requestPort). */
  bus: Pick<GatewayBus, "request">;
  commands: CommandPort;
  /** The sessions read model the gateway reads (the active table); the `sessions` table when absent. */
  readModel?: Pick<SessionReadModel, "get">;
}

/**
 * One entity, described once for every role: the actors role hosts `entity`, the projector role runs
 * `projection`, the gateway takes what `gateway` gives, the indexer runs `indexer`; all only when
 * `enabled`. The roles loop over ENTITY_MODULES (./list.ts) and name no entity.
 */
export interface EntityModule {
  /** Short name, as the entity's ("session"). */
  name: string;
  /** Whether this entity runs in a process with this configuration. */
  enabled(config: Config): boolean;
  /** The entity as the generic host runs it, under this configuration. */
  entity(shared: Pick<Shared, "config" | "codecs">): AnyEntity;
  /** A gauge of the partitions the host owns and has restored, when the module publishes one. */
  ownedGauge?: { name: string; help: string };
  projection: {
    /** What the projection writes, for the start-up line ("Cassandra merchants"). */
    writes: string;
    /**
     * The consumer groups the projection reads the journal in (what the lag tool measures), under
     * the read models the control record names (only the session's projection has several tables).
     */
    groups(models: ReadModels): string[];
    create(shared: Shared, log: Logger): EntityProjection;
  };
  /** The gateway's share: its routes' dependencies, given what the modules listed before gave. */
  gateway?(ctx: GatewayContext, earlier: EntityAreaDeps): EntityAreaDeps;
  /** The indexer's share: chain watchers that feed this entity's commands (null when none run). */
  indexer?(shared: Shared, log: Logger): Promise<RunningPart | null>;
}
