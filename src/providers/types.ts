import { BaseError } from "../support/errors.ts";
import type { ProviderCache } from "./cache.ts";

/**
 * The third-party providers behind the token-options, balances and quote routes (docs/PROVIDERS.md):
 * one interface per kind, one HTTP implementation per provider (./alchemy.ts, ./zeroex.ts,
 * ./jupiter.ts). The routes see only these interfaces, so a provider is replaced by a settings change
 * and tests run the real HTTP implementations against our local servers (deploy/local/providers/).
 */

/** What a wallet holds of one token on one chain, priced where the provider knows a price. */
export interface TokenHolding {
  chainId: number;
  /** A lower-case 0x ERC-20 address, a base58 mint, or `native` for the chain's coin. */
  token: string;
  symbol: string;
  name: string;
  decimals: number;
  /** Base units (wei, lamports, the token's smallest unit). */
  amount: bigint;
  /** USD for one whole token; null when the provider has no price for it. */
  priceUsd: number | null;
  /** A URL of the token's logo; null when the provider has none. */
  logo: string | null;
}

/** A balance-indexing provider for EVM chains (Alchemy): every token a wallet holds on a chain. */
export interface BalanceIndexer {
  /** The chains it can be asked about (the configured EVM chains it has a network name for). */
  readonly chainIds: readonly number[];
  /** The wallet's non-zero balances on the chain, its coin as `native`, each priced where known. */
  holdings(chainId: number, wallet: `0x${string}`): Promise<TokenHolding[]>;
}

/** A Solana swap aggregator (Jupiter): what an owner holds of the mints the aggregator knows, and swap quotes. */
export interface SolanaAggregator {
  /** The Solana chain id it answers for (CHAINS' Solana entry). */
  readonly chainId: number;
  /** That chain's USDC mint: what a quote buys when the request names nothing. */
  readonly usdcMint: string;
  /** Non-zero balances of known mints (SOL as the native mint), each priced where known. */
  holdings(owner: string): Promise<TokenHolding[]>;
  /** An exact-in quote; null when the aggregator finds no route for the pair. */
  quote(request: SolanaQuoteRequest): Promise<SolanaQuote | null>;
}

/** Sell exactly `sellAmount` of one mint for another on the aggregator's chain (base58 mints). */
export interface SolanaQuoteRequest {
  sellMint: string;
  buyMint: string;
  sellAmount: bigint;
  slippageBps: number;
}

export interface SolanaQuote {
  chainId: number;
  sellMint: string;
  buyMint: string;
  sellAmount: bigint;
  buyAmount: bigint;
  /** The least a swap of this route delivers at the slippage asked (Jupiter's otherAmountThreshold). */
  minBuyAmount: bigint;
  slippageBps: number;
  /** How far the route's price is below the spot price, as a fraction (Jupiter's decimal string). */
  priceImpactPct: string;
  /** The pools the route goes through, with the share of the amount each takes. */
  route: { ammKey: string; label: string; percent: number }[];
  /** The slot the aggregator quoted at. */
  contextSlot: number | null;
}

/** A swap the wallet itself sends (the push/send flow): sell `sellAmount` of one token for another. */
export interface SwapQuoteRequest {
  chainId: number;
  /** 0x address or `native`. */
  sellToken: string;
  /** 0x address or `native`. */
  buyToken: string;
  sellAmount: bigint;
  /** The wallet that sends the transaction and receives what it buys. */
  taker: `0x${string}`;
  slippageBps: number;
}

export interface SwapQuote {
  chainId: number;
  sellToken: string;
  buyToken: string;
  sellAmount: bigint;
  buyAmount: bigint;
  /** The least the transaction delivers; below it the swap reverts. */
  minBuyAmount: bigint;
  /** Who must be approved for `sellAmount` before the transaction is sent; null when selling the coin. */
  allowanceTarget: `0x${string}` | null;
  /** What the taker sends, as is. */
  transaction: {
    to: `0x${string}`;
    data: `0x${string}`;
    value: bigint;
    gas: bigint | null;
    gasPrice: bigint | null;
  };
  /** What the provider found missing for the transaction to succeed now (an approval, a balance). */
  issues: {
    allowance: { actual: bigint; spender: `0x${string}` } | null;
    balance: { token: string; actual: bigint; expected: bigint } | null;
  };
}

/** A swap router (0x Swap API v2): a quote with a transaction the taker sends. */
export interface SwapRouter {
  /** The chains it can quote on. */
  readonly chainIds: readonly number[];
  /** null when the router finds no liquidity for the pair. */
  quote(request: SwapQuoteRequest): Promise<SwapQuote | null>;
}

/** A chain a swap router may be asked to quote on, with the USDC a quote buys when the request names nothing. */
export interface SwapChain {
  chainId: number;
  usdc: string | undefined;
}

/** The providers the gateway has: each absent when its settings (key, base URL) are not given. */
export interface Providers {
  balances?: BalanceIndexer | undefined;
  solana?: SolanaAggregator | undefined;
  swaps?: SwapRouter | undefined;
  /** The chains `swaps` answers for; each one's quote is 400 `wallet_unsupported` while no router is configured. */
  swapChains?: readonly SwapChain[] | undefined;
}

/** Each vendor's origin and key, as the environment or the local stack gives them (src/providers/settings.ts). */
export interface VendorKeys {
  alchemy?: { rpcUrl: string; apiUrl: string; apiKey: string; networks: Record<string, string> } | undefined;
  zeroEx?: { apiUrl: string; apiKey: string } | undefined;
  jupiter?: { apiUrl: string; apiKey: string } | undefined;
}

/**
 * A provider failed, timed out or answered something we cannot read: the gateway answers 502
 * `provider_unavailable` and nothing was changed, so the same request may succeed later.
 */
export class ProviderUnavailableError extends BaseError {
  override name = "ProviderUnavailableError";
  readonly code = "provider_unavailable";
  readonly retryable = true;
}

/** The vendors' keys and what every vendor shares: its bound on one request and one cache. */
export interface VendorSettings {
  keys: VendorKeys;
  common: { timeoutMs: number; cache: ProviderCache };
}
