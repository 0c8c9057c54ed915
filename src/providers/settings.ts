import { z } from "zod";
import { createProviderCache } from "./cache.ts";
import type { VendorKeys, VendorSettings } from "./types.ts";

/**
 * The providers' settings (docs/PROVIDERS.md), part of the service's environment (src/config.ts).
 * A provider whose key is neither set here nor given by the local stack is absent, and the routes
 * that need it answer 503 `provider_not_configured`.
 */
export const providerEnvSchema = z.object({
  ALCHEMY_API_KEY: z.string().min(1).optional(),
  /** Alchemy's node URL, `{network}` standing for the network's name; the key is appended as a path segment. */
  ALCHEMY_RPC_URL: z.string().default("https://{network}.g.alchemy.com/v2"),
  /** The Prices API's origin. */
  ALCHEMY_API_URL: z.string().url().default("https://api.g.alchemy.com"),
  /** JSON object: chain id -> Alchemy network name, for chains not in the built-in table (KNOWN_NETWORKS). */
  ALCHEMY_NETWORKS: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: "custom", message: "must be a JSON object" });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string().regex(/^[0-9]+$/, "keys are chain ids"), z.string().min(1)))
    .optional(),
  JUPITER_API_KEY: z.string().min(1).optional(),
  /** Jupiter's API origin (price/v3, tokens/v2, ultra/v1 below it). */
  JUPITER_API_URL: z.string().url().default("https://api.jup.ag"),
  ZEROEX_API_KEY: z.string().min(1).optional(),
  ZEROEX_API_URL: z.string().url().default("https://api.0x.org"),
  /** Bound on one provider request; past it the route answers 502 and nothing changed. */
  PROVIDER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** How long a provider's answer is reused (balances, prices, metadata, quotes); 0: never. */
  PROVIDER_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(15_000),
  /** Answers kept at most (least recently written forgotten first). */
  PROVIDER_CACHE_ENTRIES: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
});
export type ProviderEnv = z.infer<typeof providerEnvSchema>;

/** Alchemy's names of the mainnets and testnets it indexes (https://docs.alchemy.com, "Supported chains"). */
const KNOWN_NETWORKS: Record<string, string> = {
  1: "eth-mainnet",
  10: "opt-mainnet",
  137: "polygon-mainnet",
  8453: "base-mainnet",
  42161: "arb-mainnet",
  11155111: "eth-sepolia",
  84532: "base-sepolia",
};

/**
 * The vendors' keys, the environment's first, else the local stack's servers, and what every vendor
 * shares (its timeout, one cache). Which chains each vendor serves is its family's wiring
 * (src/chains/vendors.ts).
 */
export function providerSettings(env: ProviderEnv, local: VendorKeys | undefined): VendorSettings {
  const cache = createProviderCache({ ttlMs: env.PROVIDER_CACHE_TTL_MS, max: env.PROVIDER_CACHE_ENTRIES });
  const alchemy = env.ALCHEMY_API_KEY
    ? {
        rpcUrl: env.ALCHEMY_RPC_URL,
        apiUrl: env.ALCHEMY_API_URL,
        apiKey: env.ALCHEMY_API_KEY,
        networks: { ...KNOWN_NETWORKS, ...env.ALCHEMY_NETWORKS },
      }
    : local?.alchemy;
  const jupiter = env.JUPITER_API_KEY
    ? { apiUrl: env.JUPITER_API_URL, apiKey: env.JUPITER_API_KEY }
    : local?.jupiter;
  const zeroEx = env.ZEROEX_API_KEY
    ? { apiUrl: env.ZEROEX_API_URL, apiKey: env.ZEROEX_API_KEY }
    : local?.zeroEx;
  return { keys: { alchemy, jupiter, zeroEx }, common: { timeoutMs: env.PROVIDER_TIMEOUT_MS, cache } };
}
