import { Connection } from "@solana/web3.js";
import type { ChainAdapter, ChainExecutorDeps } from "../adapter.ts";
import type { ChainConfig } from "../config.ts";
import { withSolanaSide } from "../solana-side.ts";
import { keypairFromBase58, parseSolanaAddress } from "./config.ts";
import { createSolanaExecutor } from "./executor.ts";
import { createSolanaGatewayChain } from "./gateway-chain.ts";
import { createSolanaGatewaySide } from "./gateway-side.ts";
import { createSolanaIndexer } from "./indexer.ts";
import { solanaMoney } from "./money.ts";

/** The balance probe's request timeout: /health's own bound on the check. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The Solana family's adapter: an unmodified @solana/web3.js Connection to the cluster's RPC URL,
 * as any Solana client would hold, lives here and nowhere in the roles or /health. With a relayer
 * key its executor relays the payers' detect-then-sign sweeps (src/chains/solana/executor.ts).
 */
export function createSolanaAdapter(
  chain: ChainConfig & { family: "solana" },
  /** The configured EVM chains: where the chain's USDC can be delivered to (its money facts). */
  evmChainIds: readonly number[] = [],
): ChainAdapter {
  const connection = new Connection(chain.rpcUrl, {
    commitment: "confirmed",
    ...(chain.wsUrl ? { wsEndpoint: chain.wsUrl } : {}),
  });
  // Its own connection: a health probe tries once and gives up with /health (no 429 retries).
  const probe = new Connection(chain.rpcUrl, {
    commitment: "confirmed",
    disableRetryOnRateLimit: true,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }),
  });
  const relayerKey = chain.relayer ? keypairFromBase58(chain.relayer) : null;
  const relayer = relayerKey?.publicKey ?? null;
  const adapter: ChainAdapter = {
    family: "solana",
    chain,
    parseAddress: parseSolanaAddress,
    createIndexer: (deps) => createSolanaIndexer({ ...deps, chain, connection }),
    relayer: relayer?.toBase58() ?? null,
    serviceAddresses: [relayer?.toBase58(), chain.vault].filter((a): a is string => a !== undefined),
    summary: `${chain.name} (Solana node ${chain.rpcUrl}, chain ${chain.chainId}, detected at confirmed, settled at finalized)`,
    minRelayerBalance: BigInt(chain.minRelayerBalanceLamports),
    async relayerBalance() {
      if (!relayer) throw new Error("no relayer configured");
      return BigInt(await probe.getBalance(relayer, "confirmed"));
    },
    gateway: createSolanaGatewayChain(chain),
    // The executor co-signs what Solana burners signed (their sweeps, bounce setups), as fee payer,
    // and bounces ended sessions' USDC as the delegate a setup approved.
    createExecutor(deps: ChainExecutorDeps) {
      if (!relayerKey) throw new Error(`chain ${chain.chainId} has no relayer key: the executor cannot send`);
      return createSolanaExecutor({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        relayer: relayerKey,
        usdcMint: chain.usdcMint,
        signal: deps.signal,
      });
    },
    subscriptionWatcher: null,
  };
  // The Solana routes need the fee payer and the vault: a chain without them serves none.
  if (relayer && chain.vault)
    withSolanaSide(
      adapter,
      createSolanaGatewaySide({
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        usdcMint: chain.usdcMint,
        feePayer: relayer.toBase58(),
        vault: chain.vault,
        reaches: solanaMoney(chain, evmChainIds).reaches,
      }),
    );
  return adapter;
}
