import { inLedger, type RelayerAction, type RelayerCosts } from "../../domain/value.ts";
import type { EvmChainConfig } from "./config.ts";

/**
 * Gas each relayer-paid action uses on an EVM chain, rounded up from the local stack's receipts
 * (docs/EXECUTOR.md): a sweep with a swap and a CCTP burn, the CCTP relay, the fast fill's ERC-20
 * transfer, a type-4 refund (REFUND_GAS), an ERC-5564 announcement, a StealthRelay withdrawal. No
 * EVM action bounces, sets a bounce up or opens an account: those cost nothing here.
 */
export const EVM_ACTION_GAS: Readonly<Record<RelayerAction, bigint>> = {
  sweep: 350_000n,
  relay: 150_000n,
  fill: 65_000n,
  refund: 100_000n,
  bounce: 0n,
  bounce_setup: 0n,
  announce: 60_000n,
  account_open: 0n,
  stealth_withdraw: 120_000n,
};

/** Wei in one ETH: the chain's price is given per whole coin. */
const WEI_PER_COIN = 10n ** 18n;

/** 3,000 USDC per ETH: the local stack's WETH/USDC pool price (deploy/local/dex.ts). */
export const DEFAULT_EVM_NATIVE_PRICE = 3_000_000_000n;
/** 1 gwei: the local chains' gas price. */
export const DEFAULT_GAS_PRICE_WEI = 1_000_000_000n;

/**
 * An EVM chain's cost estimator: each action's gas at the configured gas price, in USDC base units
 * at the configured coin price. A mined transaction's actual fee (gas used x effective price, from
 * its receipt) is priced by the same coin price when the session records it.
 */
export function evmCosts(chain: Pick<EvmChainConfig, "nativePrice" | "gasPriceWei">): RelayerCosts {
  const feePrice = { num: BigInt(chain.nativePrice ?? DEFAULT_EVM_NATIVE_PRICE), den: WEI_PER_COIN };
  const gasPrice = BigInt(chain.gasPriceWei ?? DEFAULT_GAS_PRICE_WEI);
  const actions = Object.fromEntries(
    Object.entries(EVM_ACTION_GAS).map(([action, gas]) => [action, inLedger(gas * gasPrice, feePrice)]),
  ) as Record<RelayerAction, bigint>;
  return { feePrice, actions };
}
