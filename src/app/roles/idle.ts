import type { RoleModule, RoleName } from "../shared.ts";

/**
 * Webhook delivery arrives with the merchant work; the role exists so deployments can already name
 * it, and it says plainly that it does nothing yet.
 */
const idle = (name: RoleName): RoleModule => ({
  name,
  start: async () => ({ role: name, summary: "not built yet: this role starts idle", stop: async () => {} }),
});

export const webhooksRole = idle("webhooks");
