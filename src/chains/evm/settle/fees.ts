/** EIP-1559 fee fields of a transaction, in wei per gas. */
export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** A fee raised by `percent`, rounded up, so a small fee still rises by the whole bump. */
export function bumped(fee: bigint, percent: number): bigint {
  const tenths = BigInt(Math.ceil(percent * 10));
  return (fee * (1000n + tenths) + 999n) / 1000n;
}

/**
 * The fees of a replacement at the same nonce: each field raised by at least `percent` over the
 * transaction it replaces (nodes refuse less than +10% on either), or the node's current estimate
 * when that is higher; the cap never below the tip.
 */
export function replacementFees(old: Fees, current: Fees, percent: number): Fees {
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const maxPriorityFeePerGas = max(bumped(old.maxPriorityFeePerGas, percent), current.maxPriorityFeePerGas);
  const maxFeePerGas = max(
    max(bumped(old.maxFeePerGas, percent), current.maxFeePerGas),
    maxPriorityFeePerGas,
  );
  return { maxFeePerGas, maxPriorityFeePerGas };
}
