import { inLedger, type RelayerAction, type RelayerCosts } from "../../domain/value.ts";
import type { SolanaChainConfig } from "./config.ts";

/** The base fee of one signature (lamports), fixed by the protocol. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

/** The rent-exempt minimum of a 165-byte SPL token account: what opening one locks up. */
export const TOKEN_ACCOUNT_RENT = 2_039_280n;

/**
 * What each relayer-paid action costs on Solana: the signatures its transaction carries (the
 * relayer as fee payer, plus the burner's or the stealth key's), and the rent of an account it
 * opens. Rent the relayer gets back when the account is closed counts back: it is recorded as
 * the relayer's net spend of the transaction (src/chains/solana/relayer-spend.ts). Solana is never
 * a relay's or a fast fill's destination.
 */
const SOLANA_ACTIONS: Readonly<Record<RelayerAction, { signatures: bigint; rent: bigint }>> = {
  sweep: { signatures: 2n, rent: 0n },
  relay: { signatures: 0n, rent: 0n },
  fill: { signatures: 0n, rent: 0n },
  refund: { signatures: 2n, rent: 0n },
  bounce: { signatures: 1n, rent: 0n },
  bounce_setup: { signatures: 2n, rent: 0n },
  announce: { signatures: 1n, rent: 0n },
  account_open: { signatures: 0n, rent: TOKEN_ACCOUNT_RENT },
  stealth_withdraw: { signatures: 2n, rent: 0n },
};

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** 150 USDC per SOL: no pool prices SOL on the local stack, so the price is a configured fact. */
export const DEFAULT_SOL_PRICE = 150_000_000n;

/**
 * A Solana chain's cost estimator: fees (signatures x base fee, plus the configured priority fee)
 * and rent, in lamports, turned into USDC base units at the configured SOL price.
 */
export function solanaCosts(
  chain: Pick<SolanaChainConfig, "nativePrice" | "priorityFeeLamports">,
): RelayerCosts {
  const feePrice = { num: BigInt(chain.nativePrice ?? DEFAULT_SOL_PRICE), den: LAMPORTS_PER_SOL };
  const priority = BigInt(chain.priorityFeeLamports ?? 0n);
  const actions = Object.fromEntries(
    Object.entries(SOLANA_ACTIONS).map(([action, { signatures, rent }]) => {
      const fee = signatures === 0n ? 0n : signatures * LAMPORTS_PER_SIGNATURE + priority;
      return [action, inLedger(fee + rent, feePrice)];
    }),
  ) as Record<RelayerAction, bigint>;
  return { feePrice, actions };
}
