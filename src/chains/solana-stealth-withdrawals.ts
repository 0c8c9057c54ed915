// The port of POST /stealth/withdraw/solana/prepare and POST /stealth/withdraw/solana (docs/STEALTH.md,
// "Withdrawal on Solana"): what the gateway asks of the Solana chain's relay. The implementation is
// src/chains/solana/stealth-withdrawals.ts.
import { TerminalError } from "../support/errors.ts";

/** Why the relayer refuses a Solana stealth withdrawal; each is answered 4xx and nothing is sent. */
export type SolanaWithdrawRefusalCode =
  | "stealth_solana_nothing_to_withdraw"
  | "stealth_solana_withdraw_invalid"
  | "stealth_solana_withdraw_fails";

/** Terminal: the relayer does not pay for this withdrawal; nothing was sent. */
export class SolanaWithdrawRefused extends TerminalError<SolanaWithdrawRefusalCode> {
  override name = "SolanaWithdrawRefused";
}

export interface SolanaWithdrawRequest {
  stealthAddress: string;
  destination: string;
}

export interface PreparedSolanaWithdrawal {
  amount: bigint;
  mint: string;
  feePayer: string;
  blockhash: string;
  lastValidBlockHeight: number;
  /** base64 wire form, unsigned: the stealth address signs its message, then sends it back. */
  transaction: string;
}

/** POST /stealth/withdraw/solana/prepare and POST /stealth/withdraw/solana's chain side. */
export interface SolanaStealthWithdrawals {
  chainId: number;
  /** A base58 public key in its one spelling, or null. */
  parseAddress(raw: string): string | null;
  prepare(request: SolanaWithdrawRequest): Promise<PreparedSolanaWithdrawal>;
  /** Rejects with SolanaWithdrawRefused (nothing sent) or ChainUnavailableError (the chain did not answer). */
  withdraw(
    request: SolanaWithdrawRequest & { transaction: string },
  ): Promise<{ signature: string; amount: bigint }>;
}
