import type { RoleModule, RoleName } from "../shared.ts";

/**
 * Sweeps and webhook delivery arrive with the settlement and merchant work; the roles exist so
 * deployments can already name them, and they say plainly that they do nothing yet.
 */
const idle = (name: RoleName): RoleModule => ({
  name,
  start: async () => ({ role: name, summary: "not built yet: this role starts idle", stop: async () => {} }),
});

export const executorRole = idle("executor");
export const webhooksRole = idle("webhooks");
