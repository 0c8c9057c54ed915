import { type Rejection, reject } from "./rejections.ts";
import { type ChainAddress, sameId } from "./types.ts";

/**
 * The one money rule every chain family settles by (docs/DESIGN.md, "One money policy"): what a
 * deposit is worth is decided here, once, from facts a family supplies about its chains, never from
 * a deposit's raw units. A family brings facts (ChainMoney); it never brings its own copy of a rule.
 */

/** What a chain family says about one of its chains' money: facts, not rules (src/chains/money.ts). */
export interface ChainMoney {
  chainId: number;
  /** The settlement asset (USDC) on this chain; null when the operator configured none. */
  settlementToken: ChainAddress | null;
  /** Its decimals on this chain: amounts cross chains in the settlement asset, converted by these. */
  settlementDecimals: number;
  /**
   * Whether a sweep on this chain swaps another accepted token into the settlement asset at a floor
   * the payer signs (EVM: the delegate's DEX swap under the Intent's min_out). Without it, only the
   * settlement asset itself can leave the chain.
   */
  swapsOnChain: boolean;
  /** The chains the settlement asset can be moved to from here (a bridge, or the fast fill). */
  reaches: readonly number[];
  /**
   * The least a cross-chain delivery into this chain may carry, in this chain's settlement units:
   * below it the relayer's transaction on this chain costs more than it delivers (the fast fill's
   * and the bridge relay's dust floor).
   */
  minDelivery: bigint;
  /**
   * Per token (as the chain spells it), the least a relayer-paid refund or bounce must move: below
   * it the relayer's fee is worth more than what goes back. Solana: the operator's accepted minimums,
   * which are set at that cost; EVM refunds judge a live gas-priced floor the gateway reads instead.
   */
  dustFloors: Readonly<Record<string, bigint>>;
}

/** 0.10 USDC: a cross-chain delivery below it costs the relayer more than it carries (a chain may set its own). */
export const DEFAULT_MIN_DELIVERY = 100_000n;

/** How a deposit becomes the destination's money, or why it cannot. */
export type ValueRoute =
  /** Into the settlement asset (swapped first when `swap`), then delivered here or moved to `destChainId`. */
  | { type: "settle"; swap: boolean; crossChain: boolean; source: ChainMoney; dest: ChainMoney }
  /** Delivered as it was deposited, on its own chain: an unpriced session takes the coin itself. */
  | { type: "in_kind" }
  | { type: "refused"; rejection: Rejection };

export interface ValueQuestion {
  /** The deposit: its chain and token. */
  deposit: { chainId: number; token: ChainAddress };
  destChainId: number;
  /** The session is priced in the settlement asset (a checkout's amount): the deposit must become it. */
  priced: boolean;
}

/** The dust floor of one asset on one chain (0 when no family named one). */
export const dustFloorOf = (chains: readonly ChainMoney[], chainId: number, token: ChainAddress): bigint =>
  moneyOf(chains, chainId)?.dustFloors[token] ?? 0n;

/** The facts of one chain, or null when no family described it. */
export const moneyOf = (chains: readonly ChainMoney[], chainId: number): ChainMoney | null =>
  chains.find((c) => c.chainId === chainId) ?? null;

/**
 * The route a deposit's value takes to the destination. The settlement asset travels; another token
 * travels only after a swap on its own chain at a floor the payer signs; a token that cannot be
 * swapped there settles in kind on its own chain for an unpriced session, and nowhere else: a
 * deposit's units are never read as another asset's.
 */
export function valueRoute(chains: readonly ChainMoney[], q: ValueQuestion): ValueRoute {
  const source = moneyOf(chains, q.deposit.chainId);
  const dest = moneyOf(chains, q.destChainId);
  if (source === null || dest === null)
    return refused(
      "asset_unpriced",
      `no money facts for chain ${source === null ? q.deposit.chainId : q.destChainId}`,
    );
  const crossChain = q.destChainId !== q.deposit.chainId;
  if (crossChain && !source.reaches.includes(q.destChainId))
    return refused(
      "asset_not_bridgeable",
      `the settlement asset cannot be moved from chain ${source.chainId} to chain ${q.destChainId}`,
    );
  const isSettlement = source.settlementToken !== null && sameId(q.deposit.token, source.settlementToken);
  if (isSettlement) return { type: "settle", swap: false, crossChain, source, dest };
  if (source.swapsOnChain) return { type: "settle", swap: true, crossChain, source, dest };
  if (q.priced)
    return refused(
      "checkout_token_unsupported",
      "the session is priced in USDC and this deposit cannot be swapped into USDC on its chain: only a USDC deposit is settled (the payer's client returns the rest)",
    );
  if (crossChain)
    return refused(
      "asset_not_bridgeable",
      "this deposit cannot be swapped into USDC on its chain, so it settles only on its own chain: refund it, or pay in USDC",
    );
  return { type: "in_kind" };
}

/**
 * An amount of the settlement asset on `from`, in `to`'s base units (rounded down: never more
 * than was received).
 */
export function inSettlementUnits(amount: bigint, from: ChainMoney, to: ChainMoney): bigint {
  const shift = to.settlementDecimals - from.settlementDecimals;
  if (shift >= 0) return amount * 10n ** BigInt(shift);
  return amount / 10n ** BigInt(-shift);
}

/**
 * A cross-chain settlement must deliver at least the destination's floor (in its units): less is
 * dust the relayer would pay more to move than it is worth.
 */
export function deliveryBelowFloor(route: ValueRoute, delivered: bigint): Rejection | null {
  if (route.type !== "settle" || !route.crossChain) return null;
  const arriving = inSettlementUnits(delivered, route.source, route.dest);
  if (arriving >= route.dest.minDelivery) return null;
  return reject(
    "delivery_below_minimum",
    `the delivery would be ${arriving} base units on chain ${route.dest.chainId}, below its minimum of ${route.dest.minDelivery}: refund it instead`,
  );
}

const refused = (code: Parameters<typeof reject>[0], message: string): ValueRoute => ({
  type: "refused",
  rejection: reject(code, message),
});
