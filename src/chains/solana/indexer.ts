import type { Connection } from "@solana/web3.js";
import type { ChainIndexerDeps } from "../adapter.ts";
import { createIndexer, type Indexer, type IndexerDeps } from "../indexer.ts";
import { createSolanaBlockSource, type SolanaBlock } from "./block-source.ts";
import { parseSolanaAddress, type SolanaChainConfig, solanaDepositTerms } from "./config.ts";
import { solanaTransferFinder } from "./transfers.ts";

/**
 * The Solana family's parts of the chain-neutral indexer (src/chains/indexer.ts): slots at
 * `confirmed` from the block source, deposits from the balances in each transaction's metadata,
 * and the finalized slot, so every deposit is published at "confirmed" and again at "finalized"
 * (docs/SOLANA.md, "Finality"). Checkpoints are by slot.
 */

export interface SolanaIndexerDeps
  extends ChainIndexerDeps,
    Pick<IndexerDeps<SolanaBlock>, "backfillBlocks"> {
  chain: SolanaChainConfig;
  connection: Connection;
}

/** A slot is ~400 ms: look that often, so a deposit is seen within a slot or two of its confirmation. */
const POLL_MS = 400;

export function createSolanaIndexer(deps: SolanaIndexerDeps): Indexer {
  const { chain, connection } = deps;
  return createIndexer<SolanaBlock>({
    ...deps,
    chainId: chain.chainId,
    // `confirmed` is the source's depth: no further slots are waited for.
    confirmations: 0,
    openSource: (resume) =>
      createSolanaBlockSource({
        connection,
        // INDEXER_POLL_MS suits EVM blocks; a slot never waits longer than its own time.
        pollMs: Math.min(deps.pollMs ?? POLL_MS, POLL_MS),
        signal: deps.signal,
        resume,
      }),
    finder: solanaTransferFinder(connection, chain.chainId),
    parseAddress: parseSolanaAddress,
    termsOf: solanaDepositTerms(chain),
    finalizedHeight: async () => BigInt(await connection.getSlot("finalized")),
  });
}
