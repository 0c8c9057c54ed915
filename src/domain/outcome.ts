import type { Outcome } from "./types.ts";

/**
 * How far a swapped deposit may land from the expected amount and still count as paid in full, in
 * basis points: a swap's price moves between the quote and the sweep, so an exact match would call
 * most swapped payments under- or overpaid. A USDC deposit is not swapped and is held to the unit.
 */
export const SWAP_TOLERANCE_BPS = 50n;

/**
 * The outcome of a swept session (docs/SETTLEMENT.md, "Outcomes"): the USDC the deposit was worth
 * (the swap's output, before fees: the fees are the receiver's cost, not the payer's) against the
 * expected amount. A session without an expected amount succeeds on any positive deposit.
 */
export function outcomeOf(expected: bigint | null, settled: bigint, swapped: boolean): Outcome {
  if (expected === null) return "succeeded";
  const slack = swapped ? (expected * SWAP_TOLERANCE_BPS) / 10_000n : 0n;
  if (settled < expected - slack) return "underpaid";
  if (settled > expected + slack) return "overpaid";
  return "succeeded";
}
