import type { Address, ChainAddress } from "../domain/types.ts";
import { BaseError, TerminalError } from "../support/errors.ts";
import type { ChainAdapter, PayToken, Quote } from "./adapter.ts";
import { type SignatureChecks, signatureChecks } from "./signatures.ts";

/**
 * The configured chains as the gateway sees them: each request's chain picked by its id among the
 * adapters, so no route names a family (docs/DESIGN.md, "Chain adapters").
 */

/**
 * What the settlement routes read from a chain on a request path: one try each, bounded by a short
 * timeout. An RPC that does not answer (refused, timed out, an error reply) rejects with
 * ChainUnavailableError, which the gateway answers 502 having changed nothing.
 */
export interface ChainReadPort {
  /**
   * The USDC the source chain's pool gives for `amountIn` of `token` (the zero address: the native
   * coin, quoted through WETH), over the router and path the delegate swaps with. `usdc` when
   * `token` is the chain's USDC (nothing is swapped); `no_route` when the router has no pool.
   */
  quote(chainId: number, token: Address, amountIn: bigint): Promise<Quote>;
  /**
   * Proves the chain's RPC answers, before a command that leads to a transaction is sent: reads the
   * balance `address` (the burner) holds of `token` (default the native coin); null when `token`
   * is no ERC-20. Only refund-all judges the balance (nothing left: no new transaction).
   */
  probe(chainId: number, address: Address, token?: Address): Promise<bigint | null>;
  /**
   * What `gas` costs at the chain's gas price now, in base units of `token`: wei for the native
   * coin, else through the chain's DEX (WETH to USDC, then USDC to the token); null when the DEX
   * has no pool to price the token.
   */
  gasValue(chainId: number, token: Address, gas: bigint): Promise<bigint | null>;
}

/** Retryable: the chain's RPC did not answer; nothing was sent, so the same request may succeed later. */
export class ChainUnavailableError extends BaseError {
  override name = "ChainUnavailableError";
  readonly code = "chain_unavailable";
  readonly retryable = true;
}

/** A chain a payer can pay from on the hosted page: its burner delegates, and it has a USDC. */
export interface PayableChain {
  chainId: number;
  name: string;
  delegate: ChainAddress;
  usdc: ChainAddress;
}

export interface GatewayChains {
  /** Whether `chainId` is a configured chain. */
  has(chainId: number): boolean;
  /** `raw` in the canonical spelling of `chainId`'s family, or null when it is no address there (or no such chain). */
  parseAddress(chainId: number, raw: string): ChainAddress | null;
  /** Whether any configured chain takes burner delegations (POST /sessions needs one). */
  readonly delegating: boolean;
  reads: ChainReadPort;
  checks: SignatureChecks;
  /** The chains the hosted page's burner can pay from, in configuration order. */
  payable(): PayableChain[];
  /** The tokens a payer may pay in on `chainId`, USDC first (GatewayChain.payTokens). */
  tokens(chainId: number): Promise<PayToken[]>;
  /** Why signature checks run degraded, once per distinct reason (the gateway logs them at start). */
  verifierWarnings(): Array<{ message: string; err: Error }>;
}

export function createGatewayChains(adapters: readonly ChainAdapter[]): GatewayChains {
  const byId = new Map(adapters.map((a) => [a.chain.chainId, a]));
  const adapterOf = (chainId: number): ChainAdapter => {
    const adapter = byId.get(chainId);
    if (!adapter) throw new TerminalError("chain_not_configured", `chain ${chainId} is not configured`);
    return adapter;
  };
  const all = adapters.map((a) => ({ chainId: a.chain.chainId, gateway: a.gateway }));
  return {
    has: (chainId) => byId.has(chainId),
    parseAddress: (chainId, raw) => byId.get(chainId)?.parseAddress(raw) ?? null,
    delegating: adapters.some((a) => a.gateway.burnerDelegate !== null),
    reads: {
      quote: async (chainId, token, amountIn) => adapterOf(chainId).gateway.quote(token, amountIn),
      probe: async (chainId, address, token) => adapterOf(chainId).gateway.balance(address, token),
      gasValue: async (chainId, token, gas) => adapterOf(chainId).gateway.gasValue(token, gas),
    },
    checks: signatureChecks({ byId: (chainId) => byId.get(chainId)?.gateway, all: () => all }),
    tokens: async (chainId) => adapterOf(chainId).gateway.payTokens(),
    payable: () =>
      adapters.flatMap(({ chain, gateway: { burnerDelegate, usdc } }) =>
        burnerDelegate !== null && usdc !== null
          ? [{ chainId: chain.chainId, name: chain.name, delegate: burnerDelegate, usdc }]
          : [],
      ),
    verifierWarnings() {
      const seen = new Map<string, { message: string; err: Error }>();
      for (const a of adapters) {
        const warning = a.gateway.verifierWarning;
        if (warning !== null && !seen.has(warning.message)) seen.set(warning.message, warning);
      }
      return [...seen.values()];
    },
  };
}
