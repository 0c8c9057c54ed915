import type { PublicClient } from "viem";
import type { ChainAddress } from "../../../domain/types.ts";
import type { ChainIndexerDeps, TransferFinder } from "../../adapter.ts";
import { createIndexer, type Indexer, type IndexerDeps } from "../../indexer.ts";
import { depositTermsOf, type EvmChainConfig, evmAddressSchema } from "../config.ts";
import { createBlockSource, type FetchedBlock } from "./block-source.ts";
import { findTransfers, findTransfersTo } from "./transfers.ts";

/**
 * The EVM family's parts of the chain-neutral indexer (src/chains/indexer.ts): viem's block source
 * and transfer finder over one client. The loop, the checkpoints and the watchlist are the same for
 * every family.
 */

export interface EvmIndexerDeps extends ChainIndexerDeps, Pick<IndexerDeps<FetchedBlock>, "backfillBlocks"> {
  chain: EvmChainConfig;
  client: PublicClient;
}

/** EVM addresses: lower-case 0x hex (what viem's logs and transactions are lower-cased to here). */
export const parseEvmAddress = (raw: string): ChainAddress | null => {
  const parsed = evmAddressSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
};

export function evmTransferFinder(client: PublicClient, chainId: number): TransferFinder<FetchedBlock> {
  return {
    inBlocks: (blocks, isWatched) => findTransfers({ client, chainId, blocks, isWatched }),
    toAddresses: ({ addresses, from, to, expectedHash }) =>
      findTransfersTo({ client, chainId, burners: addresses, from, to, expectedHash }),
  };
}

export function createEvmIndexer(deps: EvmIndexerDeps): Indexer {
  const { chain, client } = deps;
  return createIndexer<FetchedBlock>({
    ...deps,
    chainId: chain.chainId,
    confirmations: chain.confirmations,
    openSource: (resume) =>
      createBlockSource({
        client,
        confirmations: chain.confirmations,
        pollMs: deps.pollMs ?? 1000,
        signal: deps.signal,
        resume,
      }),
    finder: evmTransferFinder(client, chain.chainId),
    parseAddress: parseEvmAddress,
    termsOf: depositTermsOf(chain),
  });
}
