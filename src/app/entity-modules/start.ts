import { createEntityHost } from "../../actors/host/index.ts";
import { createSnapshotStore } from "../../actors/snapshots.ts";
import type { EntityAreaDeps } from "../../gateway/app.ts";
import type { Logger } from "../../logging.ts";
import { actorsNotReady, firstNotReady } from "../../ops/readiness.ts";
import { createSnapshotTable } from "../../store/snapshots.ts";
import type { Shared } from "../shared.ts";
import { ENTITY_MODULES } from "./list.ts";
import type { EntityModule, GatewayContext, RunningPart } from "./module.ts";

/**
 * The one start-up of every entity's share of a role: the generic host per entity for the actors
 * role, its projection for the projector role, its watchers for the indexer, its route dependencies
 * for the gateway. Disabled modules are skipped; parts start in list order, each once ready, and
 * stop in reverse.
 */

/** Each enabled entity on the generic host, once its first assignment is restored (or `timeoutMs`). */
export function startEntityActors(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
  modules: readonly EntityModule[] = ENTITY_MODULES,
): Promise<RunningPart> {
  return startParts(shared, modules, async (m) => {
    const entity = m.entity(shared);
    const host = createEntityHost(entity, {
      kafka: shared.kafka,
      codecs: shared.codecs,
      snapshots: createSnapshotStore(createSnapshotTable(shared.cassandra), entity),
      log,
      snapshotEvery: shared.config.SNAPSHOT_EVERY_EVENTS,
      commitLingerMs: shared.config.ACTOR_COMMIT_LINGER_MS,
      commitLingerMaxMs: shared.config.ACTOR_COMMIT_LINGER_MAX_MS,
    });
    await host.start();
    let restored = await host.restored(timeoutMs);
    // Reported up after the start's wait, but not ready until its partitions are restored.
    if (!restored)
      void host.restored(Number.POSITIVE_INFINITY).then((done) => {
        restored = done;
      });
    if (m.ownedGauge) {
      shared.metrics.gaugeFrom(m.ownedGauge.name, m.ownedGauge.help, [], () => [
        { labels: {}, value: host.owned().length },
      ]);
    }
    const inputs = entity.inputs.map((i) => i.topic).join(" + ");
    return {
      summary: `${entity.name} actors in group "${entity.group}" over ${inputs}: ${
        restored ? `partitions ${host.owned().join(",")} restored` : "still restoring"
      }`,
      notReady: () => actorsNotReady(entity.name, restored, host.restoring()),
      stop: host.stop,
    };
  });
}

/** Each enabled entity's journal -> its read model, once caught up (or `timeoutMs`). */
export function startEntityProjections(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
  modules: readonly EntityModule[] = ENTITY_MODULES,
): Promise<RunningPart> {
  return startParts(shared, modules, async (m) => {
    const projection = m.projection.create(shared, log);
    const caughtUp = await projection.start(timeoutMs);
    return {
      summary: `${m.entity(shared).journal.topic} -> ${m.projection.writes}${
        caughtUp ? " (caught up)" : " (still catching up)"
      }`,
      stop: () => projection.stop(),
    };
  });
}

/** The indexer's share of each enabled entity (chain watchers feeding its commands). */
export function startEntityIndexers(
  shared: Shared,
  log: Logger,
  modules: readonly EntityModule[] = ENTITY_MODULES,
): Promise<RunningPart> {
  return startParts(shared, modules, (m) => m.indexer?.(shared, log) ?? Promise.resolve(null));
}

/** The gateway's route dependencies from each enabled entity, each module seeing what those before gave. */
export function entityGatewayDeps(
  ctx: GatewayContext,
  modules: readonly EntityModule[] = ENTITY_MODULES,
): EntityAreaDeps {
  let deps: EntityAreaDeps = {};
  for (const m of modules) {
    if (m.enabled(ctx.shared.config) && m.gateway) deps = { ...deps, ...m.gateway(ctx, deps) };
  }
  return deps;
}

/** Starts one part per enabled module in order; on a failed start the parts already running stop. */
async function startParts(
  shared: Pick<Shared, "config">,
  modules: readonly EntityModule[],
  start: (m: EntityModule) => Promise<RunningPart | null>,
): Promise<RunningPart> {
  const running: RunningPart[] = [];
  const stop = async () => {
    for (const p of [...running].reverse()) await p.stop();
  };
  try {
    for (const m of modules) {
      if (!m.enabled(shared.config)) continue;
      const part = await start(m);
      if (part) running.push(part);
    }
  } catch (err) {
    await stop().catch(() => {});
    throw err;
  }
  return {
    summary: running.map((p) => p.summary).join("; "),
    notReady: () => firstNotReady(running.map((p) => () => p.notReady?.() ?? null)),
    stop,
  };
}
