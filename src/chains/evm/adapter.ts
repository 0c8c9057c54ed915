import { createPublicClient, http, type PublicClient } from "viem";
import type { BlockSource, ChainAdapter, ChainIndexer, ChainIndexerDeps } from "../adapter.ts";
import { executorNotImplementedUntilSettlement } from "../adapter.ts";
import type { ChainConfig } from "../config.ts";
import type { BlockSource as EvmBlockSource, FetchedBlock } from "./block-source.ts";
import { createEvmIndexer } from "./indexer.ts";

/**
 * The EVM family's adapter: viem clients live here and nowhere in the roles or /health. Settlement
 * (send/confirm) is declared by the interface and not built yet.
 */
export function createEvmAdapter(chain: ChainConfig & { family: "evm" }): ChainAdapter {
  let scan: PublicClient | undefined;
  let probe: PublicClient | undefined;
  // JSON-RPC batching for the indexer: the block scan issues many small calls per step (see docs/INDEXER.md).
  const scanClient = () => {
    scan ??= createPublicClient({ transport: http(chain.rpcUrl, { batch: true }) });
    return scan;
  };
  const relayer = chain.relayer?.address ?? null;
  return {
    family: "evm",
    chain,
    parseAddress: (raw) => (/^0x[0-9a-fA-F]{40}$/.test(raw) ? raw.toLowerCase() : null),
    createIndexer: (deps: ChainIndexerDeps): ChainIndexer => {
      const indexer = createEvmIndexer({ ...deps, chain, client: scanClient() });
      return {
        async watch(burners) {
          const results = await indexer.watchlist.addMany(burners);
          return results.map(({ outcome, entry }) => ({
            outcome,
            burner: entry.burner,
            owner: entry.sessionId,
          }));
        },
        run: indexer.run,
        status: indexer.status,
      };
    },
    relayer,
    minRelayerBalance: BigInt(chain.minRelayerBalanceWei),
    async relayerBalance({ timeoutMs }) {
      if (!relayer) throw new Error("no relayer configured");
      // Its own client: a health probe tries once within its timeout, unlike the indexer's retries.
      probe ??= createPublicClient({ transport: http(chain.rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
      return probe.getBalance({ address: relayer });
    },
    executor: executorNotImplementedUntilSettlement("evm"),
  };
}

/** The EVM block source is this family's BlockSource (checked here, where the two meet). */
export type EvmBlockSourceIsNeutral = EvmBlockSource extends BlockSource<FetchedBlock> ? true : never;
const _evmBlockSourceIsNeutral: EvmBlockSourceIsNeutral = true;
void _evmBlockSourceIsNeutral;
