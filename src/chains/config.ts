import { z } from "zod";
import { type EvmChainConfig, evmChainSchema } from "./evm/config.ts";
import { solanaChainSchema } from "./solana/config.ts";

/** The local stack's chains as CHAINS entries, one function per family (src/app/infra.ts). */
export { localEvmChain } from "./evm/local-chain.ts";
export { localSolanaChain } from "./solana/local-chain.ts";
export type { EvmChainConfig };

/**
 * The configured chains: one list, each entry naming its `family`. Each family's adapter owns the
 * schema of its entries (addresses, keys and URLs are spelled differently per family); a new family
 * adds its schema to this union and its adapter to src/chains/adapters.ts, nothing else.
 */

const chainSchema = z.discriminatedUnion("family", [
  evmChainSchema.extend({ family: z.literal("evm") }),
  solanaChainSchema.extend({ family: z.literal("solana") }),
]);

export type ChainConfig = z.infer<typeof chainSchema>;
export type ChainFamily = ChainConfig["family"];

/**
 * Parses a JSON list of chains. `defaultFamily` fills a missing `family`: the EVM_CHAINS alias
 * predates the field, so its entries are EVM chains unless they say otherwise.
 */
export function parseChainList(
  json: unknown,
  defaultFamily?: ChainFamily,
): { ok: true; chains: ChainConfig[] } | { ok: false; issues: string[] } {
  const entries =
    defaultFamily && Array.isArray(json)
      ? json.map((c: unknown) =>
          c !== null && typeof c === "object" && !("family" in c) ? { ...c, family: defaultFamily } : c,
        )
      : json;
  const parsed = z.array(chainSchema).safeParse(entries);
  if (!parsed.success)
    return { ok: false, issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) };
  const ids = parsed.data.map((c) => c.chainId);
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined) return { ok: false, issues: [`chain id ${repeated} is configured twice`] };
  return { ok: true, chains: parsed.data };
}

/** The older EVM_CHAINS list: it predates `family`, so an entry that names none is an EVM chain. */
export const parseLegacyChainList = (json: unknown) => parseChainList(json, "evm");

/** The EVM entries, for what only EVM chains have (EIP-7702 burner authorizations, EVM vendors). */
export const evmChainsOf = (chains: readonly ChainConfig[]): EvmChainConfig[] =>
  chains.filter((c) => c.family === "evm");

/** The Solana entry (docs/SOLANA.md: at most one), for what only Solana has (its vendors). */
export const solanaChainOf = (chains: readonly ChainConfig[]): SolanaChainEntry | undefined =>
  chains.find((c): c is SolanaChainEntry => c.family === "solana");
type SolanaChainEntry = Extract<ChainConfig, { family: "solana" }>;
