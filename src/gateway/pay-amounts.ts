import type { GatewayChains } from "../chains/gateway-chains.ts";
import type { Address } from "../domain/types.ts";

/**
 * How much of a token pays a USDC amount, when the sweep swaps it to USDC: the exact-output
 * question asked of an exact-input quote (the route settlement swaps with). A checkout's outcome
 * holds a swapped deposit to within 50 bps of the amount (docs/SETTLEMENT.md, "Outcomes"), so the
 * answer aims a little above the amount: a pool that moves a little before the sweep still settles.
 */

/** What the answer aims above the amount, in bps: well inside the 50 bps a swapped deposit may miss by. */
export const HEADROOM_BPS = 15n;
/** Quotes asked at most: a deep pool is met after two, a thin one (steep price impact) takes a few more. */
const MAX_QUOTES = 8;

/**
 * The amount of the token (base units) whose swap gives at least `usdcAmount` plus the headroom,
 * or null when the token has no price (`quote` answers null or nothing for it). `unit` is one whole
 * token in base units (10^decimals): the first quote's size, so the price is read at a sane scale.
 */
export async function amountDue(
  quote: (amountIn: bigint) => Promise<bigint | null>,
  usdcAmount: bigint,
  unit: bigint,
): Promise<bigint | null> {
  const aim = usdcAmount + (usdcAmount * HEADROOM_BPS + 9_999n) / 10_000n;
  let amountIn = unit;
  let out = await quote(amountIn);
  for (let asked = 1; asked < MAX_QUOTES; asked++) {
    if (out === null || out <= 0n) return null;
    // Scaled by the last price; the pool's price impact makes it a little short, so once more.
    const next = (aim * amountIn + out - 1n) / out;
    if (next === amountIn && out >= aim) break;
    amountIn = next;
    out = await quote(amountIn);
  }
  return out !== null && out >= usdcAmount ? amountIn : null;
}

/**
 * What a chain can be paid in for `usdcAmount`: its USDC for the amount itself (not swapped, held to
 * the unit), every other accepted token for its amount due over the chain's own quote. A token with
 * no price, or whose quote the RPC did not answer, is left out: the payer can still pay in USDC.
 */
export async function payOptions(
  chains: Pick<GatewayChains, "tokens" | "reads">,
  chain: { chain_id: number; usdc: string },
  usdcAmount: bigint,
): Promise<Array<{ token: string; symbol: string; decimals: number; amount: string }>> {
  const chainId = chain.chain_id;
  const tokens = await chains.tokens(chainId);
  const priced = await Promise.all(
    tokens.map(async (t) => {
      // A payable chain is an EVM one (its burners delegate): its tokens are 0x addresses.
      const quote = (amountIn: bigint) => chains.reads.quote(chainId, t.token as Address, amountIn);
      if (t.token.toLowerCase() === chain.usdc.toLowerCase()) return { ...t, amount: usdcAmount.toString() };
      const amount = await quote(1n)
        .then((q) =>
          q.kind === "usdc"
            ? usdcAmount
            : amountDue(
                async (amountIn) => {
                  const next = await quote(amountIn);
                  return next.kind === "quote" ? next.estimatedOut : null;
                },
                usdcAmount,
                10n ** BigInt(t.decimals),
              ),
        )
        .catch(() => null);
      return amount === null ? null : { ...t, amount: amount.toString() };
    }),
  );
  return priced.filter((t) => t !== null);
}
