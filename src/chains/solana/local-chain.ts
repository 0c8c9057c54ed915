import { SOLANA_LOCAL_CHAIN_ID, type SolanaChainConfig } from "./config.ts";

/** The local Solana node as the local stack's file names it (src/app/infra.ts reads the file). */
export interface LocalSolanaNode {
  rpcUrl: string;
  wsUrl: string;
  usdcMint: string;
  relayerKey: { secretKey: string };
  vaultKey?: { publicKey: string } | undefined;
  finalityLagSlots: number;
}

/** The local Solana node as a Solana chain entry: its USDC and SOL, its relayer and the stack's vault. */
export const localSolanaChain = (s: LocalSolanaNode): SolanaChainConfig & { family: "solana" } => ({
  family: "solana",
  name: "solana-local",
  chainId: SOLANA_LOCAL_CHAIN_ID,
  rpcUrl: s.rpcUrl,
  wsUrl: s.wsUrl,
  usdcMint: s.usdcMint,
  relayer: s.relayerKey.secretKey,
  ...(s.vaultKey ? { vault: s.vaultKey.publicKey } : {}),
  finalityLagSlots: s.finalityLagSlots,
  minRelayerBalanceLamports: "50000000",
});
