// The port of POST /stealth/withdraw (docs/STEALTH.md, "Withdrawal on EVM"): what the gateway hands a chain
// family's relay and what it gets back. The EVM implementation is src/chains/evm/settle/stealth-withdrawals.ts.
import type { Address, Hex } from "viem";
import { TerminalError } from "../support/errors.ts";

/** A withdrawal as the stealth key signed it (bigints and checksummed-or-not 0x strings). */
export interface StealthWithdrawal {
  chainId: number;
  stealthAddress: Address;
  token: Address;
  destination: Address;
  fee: bigint;
  /** The fee's recipient and the relay's only accepted sender, as signed: must be this service's relayer. */
  relayer: Address;
  deadline: bigint;
  authorization: { value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex };
  withdrawSignature: Hex;
}

export interface WithdrawalSent {
  txHash: Hex;
  destination: Address;
  amount: bigint;
  fee: bigint;
}

/** Why the relayer refuses to pay for a withdrawal; each is answered 4xx and nothing is sent. */
export type WithdrawalRefusalCode =
  | "stealth_withdraw_invalid"
  | "stealth_relayer_mismatch"
  | "stealth_signature_invalid"
  | "stealth_fee_too_high"
  | "stealth_fee_too_low"
  | "stealth_balance_insufficient"
  | "stealth_withdraw_replayed"
  | "stealth_withdraw_reverts";

/** Terminal: the relayer refuses to pay for this withdrawal; nothing was sent. */
export class WithdrawalRefused extends TerminalError<WithdrawalRefusalCode> {
  override name = "WithdrawalRefused";
}

/** One relay per EVM chain that has a StealthRelay and a relayer. */
export interface StealthWithdrawals {
  chainIds: readonly number[];
  /** Rejects with WithdrawalRefused (nothing sent) or ChainUnavailableError (the chain did not answer). */
  withdraw(w: StealthWithdrawal): Promise<WithdrawalSent>;
}
