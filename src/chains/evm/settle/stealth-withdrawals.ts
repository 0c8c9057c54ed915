import { type Address, createPublicClient, type Hex, http, type PublicClient } from "viem";
import type { ExecutorLedger } from "../../../store/executor-ledger.ts";
import { type ChainConfig, evmChainsOf } from "../../config.ts";
import { ChainUnavailableError } from "../../gateway-chains.ts";
import { type StealthWithdrawals, WithdrawalRefused } from "../../stealth-withdrawals.ts";
import { createRelayerWallet } from "./relayer-wallet.ts";
import { relayStealthWithdrawal, type StealthWithdrawChain } from "./stealth-withdraw.ts";

export interface StealthWithdrawalsOptions {
  /** Every configured chain: the EVM ones with a StealthRelay, a USDC and a relayer relay withdrawals. */
  chains: readonly ChainConfig[];
  ledger: ExecutorLedger;
  maxFee: bigint;
  /** The DEX-priced gas (GatewayChain.gasValue of the chain's USDC); null where there is no pool. */
  gasInUsdc?: ((chainId: number, usdc: Address, gas: bigint) => Promise<bigint | null>) | undefined;
  /** The ETH price used where the DEX gives none (STEALTH_WITHDRAW_USDC_PER_ETH). */
  usdcPerEth: bigint;
  stuckAfterMs: number;
  feeBumpPercent: number;
  nowSeconds?: () => bigint;
}

export function createStealthWithdrawals(opts: StealthWithdrawalsOptions): StealthWithdrawals {
  const byChain = new Map<number, StealthWithdrawChain>();
  for (const chain of evmChainsOf(opts.chains)) {
    if (!chain.stealthRelay || !chain.usdc || !chain.relayer) continue;
    // Bounded requests: a withdrawal waits for the node, never forever.
    const client = createPublicClient({
      transport: http(chain.rpcUrl, { timeout: 10_000, retryCount: 1 }),
      pollingInterval: 250,
    }) as PublicClient;
    const wallet = createRelayerWallet({
      chainId: chain.chainId,
      client,
      privateKey: chain.relayer.privateKey as Hex,
      ledger: opts.ledger,
      stuckAfterMs: opts.stuckAfterMs,
      feeBumpPercent: opts.feeBumpPercent,
    });
    byChain.set(chain.chainId, {
      chainId: chain.chainId,
      usdc: chain.usdc as Address,
      relay: chain.stealthRelay as Address,
      client,
      wallet,
    });
  }
  const settings = {
    maxFee: opts.maxFee,
    gasInUsdc: opts.gasInUsdc,
    usdcPerEth: opts.usdcPerEth,
    nowSeconds: opts.nowSeconds ?? (() => BigInt(Math.floor(Date.now() / 1000))),
  };
  return {
    chainIds: [...byChain.keys()],
    async withdraw(w) {
      const chain = byChain.get(w.chainId);
      if (!chain)
        throw new WithdrawalRefused("stealth_withdraw_invalid", "chain_id: no stealth relay on this chain");
      try {
        return await relayStealthWithdrawal(chain, settings, w);
      } catch (err) {
        if (err instanceof WithdrawalRefused) throw err;
        // The same request again resumes the same step (one transaction per authorization), so a retry is safe.
        throw new ChainUnavailableError(
          `chain ${w.chainId} did not answer: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`,
          { cause: err },
        );
      }
    },
  };
}
