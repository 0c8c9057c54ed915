import type { FastifyInstance } from "fastify";
import type { GatewayDeps } from "../../src/gateway/app.ts";
import { testGateway } from "./memory-gateway.ts";

/**
 * Stands for every port a route plugin takes: any property is another stand-in and any call answers
 * one, so every optional area registers its routes. Keys fastify and avvio read from plugin options
 * (a prefix, a name, promise-likeness) are absent, as on a plain options object. Routes are only
 * listed, never called.
 */
const absent = new Set([
  "then",
  "name",
  "prefix",
  "logLevel",
  "logSerializers",
  "toJSON",
  "valueOf",
  "toString",
]);
const standIn: unknown = new Proxy(() => undefined, {
  get: (_target, key) => (typeof key === "symbol" || absent.has(key) ? undefined : standIn),
  apply: () => standIn,
});

/** The gateway with every area on (merchant mode, the operator, stealth, Solana, links, subscriptions). */
export async function everyRouteGateway(): Promise<FastifyInstance> {
  const port = standIn as never;
  const deps: Partial<GatewayDeps> = {
    merchants: port,
    webhookDeliveries: port,
    merchantEvents: port,
    subscriptions: port,
    links: port,
    stealthWithdrawals: port,
    solanaStealthWithdrawals: port,
    operator: port,
    // Providers stay the default (none): their routes are always on, and swapChains is a list.
  };
  const env = { MERCHANT_MODE: "development", OPERATOR_SECRET: "o".repeat(40), STEALTH_ENABLED: "true" };
  return (await testGateway(env, { solana: port, deps })).app;
}
