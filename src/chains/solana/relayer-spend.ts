/** The part of a landed transaction's metadata that says what its accounts paid (web3.js `meta`). */
interface PaidMeta {
  fee: number;
  preBalances: number[];
  postBalances: number[];
  computeUnitsConsumed?: number | undefined;
}

/**
 * What a landed transaction cost the relayer, its fee payer (account 0), as executor.results
 * reports it: the lamports it lost, so the fee and priority fee plus the rent of any account it
 * opened, less rent returned to it by an account closed in the same transaction (never below 0).
 * Without balances, the fee alone. `gasUsed` is the compute units spent.
 */
export function relayerSpend(meta: PaidMeta | null | undefined): { gasUsed: bigint; feeWei: bigint } {
  const gasUsed = BigInt(meta?.computeUnitsConsumed ?? 0);
  const pre = meta?.preBalances[0];
  const post = meta?.postBalances[0];
  if (pre === undefined || post === undefined) return { gasUsed, feeWei: BigInt(meta?.fee ?? 0) };
  const lost = BigInt(pre) - BigInt(post);
  return { gasUsed, feeWei: lost > 0n ? lost : 0n };
}
