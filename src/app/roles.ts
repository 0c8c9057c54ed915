import { startEntityActors } from "./entity-modules/start.ts";
import { executorRole } from "./roles/executor.ts";
import { gatewayRole } from "./roles/gateway.ts";
import { indexerRole } from "./roles/indexer.ts";
import { projectorRole } from "./roles/projector.ts";
import { webhooksRole } from "./roles/webhooks.ts";
import {
  CATCH_UP_TIMEOUT_MS,
  type RoleModule,
  type RoleName,
  type RunningRole,
  type Shared,
} from "./shared.ts";

export type { RunningRole, Shared };
export type Role = RoleName;

/** The actors of every entity (ENTITY_MODULES), each on the generic entity host. */
const actorsRole: RoleModule = {
  name: "actors",
  async start(shared, log) {
    const actors = await startEntityActors(shared, log, CATCH_UP_TIMEOUT_MS);
    return {
      role: "actors",
      summary: actors.summary,
      notReady: () => actors.notReady?.() ?? null,
      stop: actors.stop,
    };
  },
};

/**
 * Every role, in the order a process starts them: consumers of the journal first, the gateway
 * last, so it answers only once everything behind it runs. Stopped in the reverse order. This is
 * the one place the order is declared.
 */
export const ROLE_MODULES: readonly RoleModule[] = [
  actorsRole,
  projectorRole,
  indexerRole,
  executorRole,
  webhooksRole,
  gatewayRole,
];
export const ROLES: readonly RoleName[] = ROLE_MODULES.map((r) => r.name);

export async function startRole(role: RoleName, shared: Shared): Promise<RunningRole> {
  const module = ROLE_MODULES.find((r) => r.name === role);
  if (!module) throw new Error(`unknown role ${role}`);
  return module.start(shared, shared.log.child({ role }));
}

/**
 * Starts the chosen roles in the declared order, each once the one before is ready; `started` hears
 * of each as it comes up. On a failed start the roles already running are stopped.
 */
export async function startRoles(
  shared: Shared,
  roles: readonly RoleName[],
  started: (r: RunningRole) => void = () => {},
): Promise<RunningRole[]> {
  const running: RunningRole[] = [];
  try {
    for (const { name } of ROLE_MODULES.filter((r) => roles.includes(r.name))) {
      const r = await startRole(name, shared);
      running.push(r);
      started(r);
    }
  } catch (err) {
    await stopRoles(running, shared.log);
    throw err;
  }
  return running;
}

/** Stops running roles in the reverse of their start order; a failed stop is logged, not thrown. */
export async function stopRoles(running: readonly RunningRole[], log: Shared["log"]): Promise<void> {
  for (const r of [...running].reverse())
    await r.stop().catch((err) => log.warn({ err, role: r.role }, "stop failed"));
}
