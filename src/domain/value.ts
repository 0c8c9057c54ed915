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
  /** The chain's native coin, as its family spells it (what its fees are paid in). */
  nativeToken: ChainAddress;
  /** What the relayer's work on this chain costs, from the family's estimator (src/chains/<family>/cost.ts). */
  costs: RelayerCosts;
}

/**
 * The relayer's ledger is kept in one unit for every family: base units of a 6-decimal USD
 * settlement asset (USDC's), so one micro-dollar. A budget, a cost and a recorded spend compare
 * across chains without knowing their fee coins.
 */
export const LEDGER_DECIMALS = 6;

/** Every transaction the relayer may pay for on a session's behalf. */
export const RELAYER_ACTIONS = [
  "sweep",
  "relay",
  "fill",
  "refund",
  "bounce",
  "bounce_setup",
  "announce",
  "account_open",
  "stealth_withdraw",
] as const;
export type RelayerAction = (typeof RELAYER_ACTIONS)[number];

/** A chain family's cost estimate, as data: the domain prices with it and never asks the chain. */
export interface RelayerCosts {
  /** One unit of the fee coin (wei, lamport) is worth `num / den` ledger units. */
  feePrice: { num: bigint; den: bigint };
  /** Each action's expected cost on this chain, in ledger units: fees, plus rent it leaves unrecovered. */
  actions: Readonly<Record<RelayerAction, bigint>>;
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

/** An amount of a fee coin's smallest unit in ledger units at `price`: rounded up, spend is never under-counted. */
export const inLedger = (fee: bigint, price: RelayerCosts["feePrice"]): bigint =>
  ceilDiv(fee * price.num, price.den);

/** A fee paid on `chain`, in its fee coin's smallest unit, in ledger units. */
export const feeInLedger = (chain: ChainMoney, fee: bigint): bigint => inLedger(fee, chain.costs.feePrice);

/** What `action` on chain `chainId` is expected to cost, in ledger units (0 on a chain without money facts). */
export const costOf = (chains: readonly ChainMoney[], chainId: number, action: RelayerAction): bigint =>
  moneyOf(chains, chainId)?.costs.actions[action] ?? 0n;

/**
 * The dust floor of a relayer-paid transfer of `token` by `action`: what the action costs, in the
 * token's base units (the settlement asset by its decimals, the native coin by the fee price), or
 * the family's floor for the token when that is higher. A token the chain cannot price has only the
 * family's floor. The transfer must move more than this: the one dust rule of every family.
 */
export function dustFloorOf(
  chains: readonly ChainMoney[],
  chainId: number,
  token: ChainAddress,
  action: RelayerAction,
): bigint {
  const chain = moneyOf(chains, chainId);
  if (chain === null) return 0n;
  const cost = chain.costs.actions[action];
  const named = Object.entries(chain.dustFloors).find(([t]) => sameId(t, token))?.[1] ?? 0n;
  let priced = 0n;
  if (chain.settlementToken !== null && sameId(token, chain.settlementToken)) {
    const shift = chain.settlementDecimals - LEDGER_DECIMALS;
    priced = shift >= 0 ? cost * 10n ** BigInt(shift) : ceilDiv(cost, 10n ** BigInt(-shift));
  } else if (sameId(token, chain.nativeToken)) {
    priced = ceilDiv(cost * chain.costs.feePrice.den, chain.costs.feePrice.num);
  }
  return named > priced ? named : priced;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (b === 0n ? 0n : (a + b - 1n) / b);

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
 * A cross-chain settlement must deliver at least the destination's floor (in its units): its
 * `minDelivery`, or what the relayer's transaction there (`action`: the bridge relay or the fast
 * fill) costs, whichever is higher. Less is dust the relayer would pay more to move than it is worth.
 */
export function deliveryBelowFloor(
  route: ValueRoute,
  delivered: bigint,
  action: "relay" | "fill",
): Rejection | null {
  if (route.type !== "settle" || !route.crossChain) return null;
  const { dest } = route;
  const arriving = inSettlementUnits(delivered, route.source, dest);
  const cost =
    dest.settlementToken === null ? 0n : dustFloorOf([dest], dest.chainId, dest.settlementToken, action);
  const floor = cost > dest.minDelivery ? cost : dest.minDelivery;
  if (arriving >= floor) return null;
  const below =
    arriving < dest.minDelivery
      ? `below its minimum of ${dest.minDelivery}`
      : `below what the relayer's transaction there costs, ${cost}`;
  return reject(
    "delivery_below_minimum",
    `the delivery would be ${arriving} base units on chain ${dest.chainId}, ${below}: refund it instead`,
  );
}

const refused = (code: Parameters<typeof reject>[0], message: string): ValueRoute => ({
  type: "refused",
  rejection: reject(code, message),
});
