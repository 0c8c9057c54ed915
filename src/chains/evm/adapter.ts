import { createPublicClient, http, type PublicClient } from "viem";
import type { ChainAdapter, SubscriptionWatcherDeps } from "../adapter.ts";
import type { ChainConfig } from "../config.ts";
import { createEvmGatewayChain } from "./gateway-reads.ts";
import { createEvmIndexer, parseEvmAddress } from "./ingest/indexer.ts";
import { createEvmExecutor } from "./settle/executor.ts";
import { createSubscriptionWatcher } from "./subscriptions/subscription-watcher.ts";

/** The balance probe's request timeout: /health's own bound on the check. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The EVM family's adapter: viem clients live here and nowhere in the roles, the gateway or /health.
 */
export function createEvmAdapter(chain: ChainConfig & { family: "evm" }): ChainAdapter {
  let scan: PublicClient | undefined;
  // Its own client: a health probe tries once, unlike the indexer's retries, and a request /health
  // gave up on (it bounds the wait at 2 s) does not linger past that either.
  const probe = createPublicClient({
    transport: http(chain.rpcUrl, { retryCount: 0, timeout: PROBE_TIMEOUT_MS }),
  });
  // JSON-RPC batching for the indexer: the block scan issues many small calls per step (see docs/INDEXER.md).
  const scanClient = () => {
    scan ??= createPublicClient({ transport: http(chain.rpcUrl, { batch: true }) });
    return scan;
  };
  const relayer = chain.relayer?.address ?? null;
  return {
    family: "evm",
    chain,
    parseAddress: parseEvmAddress,
    createIndexer: (deps) => createEvmIndexer({ ...deps, chain, client: scanClient() }),
    relayer,
    serviceAddresses: relayer === null ? [] : [relayer],
    summary: `${chain.name} (chain ${chain.chainId}, ${chain.confirmations} confirmations)`,
    minRelayerBalance: BigInt(chain.minRelayerBalanceWei),
    async relayerBalance() {
      if (!relayer) throw new Error("no relayer configured");
      return probe.getBalance({ address: relayer });
    },
    createExecutor: (deps) => createEvmExecutor(chain, deps),
    gateway: createEvmGatewayChain(chain),
    subscriptionWatcher: chain.subscriptions
      ? subscriptionWatcherOf({ ...chain, manager: chain.subscriptions })
      : null,
  };
}

/** The manager's Canceled logs at the chain's confirmation depth (./subscriptions/subscription-watcher.ts). */
const subscriptionWatcherOf =
  (chain: { chainId: number; rpcUrl: string; manager: `0x${string}`; confirmations: number }) =>
  (deps: SubscriptionWatcherDeps) =>
    createSubscriptionWatcher({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      manager: chain.manager,
      confirmations: chain.confirmations,
      ...deps,
    });
