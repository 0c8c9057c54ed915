// The bounce's transaction (docs/SOLANA.md, "The bounce"): the relayer, as the delegate the burner
// approved in its setup, moves the whole USDC balance of the burner's token account to the refund
// address the burner signed, and closes the emptied account, its rent going there too.
import {
  type Account,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { type PublicKey, Transaction } from "@solana/web3.js";
import { burnerTokenAccount } from "./bounce-setup.ts";

/**
 * What a bounce can do with the burner's token account as the chain shows it now. Only what the
 * chain lets the relayer do is planned, so a bounce that would fail is never sent (a failed
 * transaction still costs its fee).
 */
export type BouncePlan =
  | { kind: "bounce"; amount: bigint; close: boolean }
  /** No account, or nothing in it: nothing to move (the payer moved it, or nothing came). */
  | { kind: "empty" }
  /** The relayer is not the delegate for the balance (the payer revoked or spent the allowance). */
  | { kind: "not_delegated" }
  /**
   * The refund address has no usable USDC account. The service does not make one: its rent would be
   * the relayer's, for every fresh address a stranger names. The burner's key still moves the money.
   */
  | { kind: "no_refund_account" };

/**
 * `account` is the burner's USDC account, `refundAccount` the refund address's associated USDC
 * account (each null when it does not exist).
 */
export function planBounce(
  account: Account | null,
  refundAccount: Account | null,
  relayer: PublicKey,
): BouncePlan {
  if (account === null || account.amount === 0n) return { kind: "empty" };
  if (
    account.delegate === null ||
    !account.delegate.equals(relayer) ||
    account.delegatedAmount < account.amount
  )
    return { kind: "not_delegated" };
  if (refundAccount === null || refundAccount.isFrozen || !refundAccount.mint.equals(account.mint))
    return { kind: "no_refund_account" };
  // Closing needs the relayer as close authority; a frozen or native account is never closed here.
  const close = account.closeAuthority?.equals(relayer) === true && !account.isFrozen && !account.isNative;
  return { kind: "bounce", amount: account.amount, close };
}

export interface BounceParams {
  burner: PublicKey;
  refundTo: PublicKey;
  relayer: PublicKey;
  mint: PublicKey;
  decimals: number;
  amount: bigint;
  /** Close the burner's account after emptying it, its rent to the refund address. */
  close: boolean;
  blockhash: string;
}

/**
 * The bounce, unsigned (the relayer signs it alone: fee payer, delegate, close authority), to the
 * refund address's existing USDC account. The transfer moves `amount`, the whole balance read
 * before; money arriving in between makes the close fail, so the transaction fails whole and the
 * next try moves the new balance. The account's rent goes with the money: the relayer paid none of
 * it (the deposit opened the account), so it is the payer's.
 */
export function buildBounce(p: BounceParams): Transaction {
  const from = burnerTokenAccount(p.burner, p.mint);
  const to = getAssociatedTokenAddressSync(p.mint, p.refundTo);
  const tx = new Transaction({ feePayer: p.relayer, recentBlockhash: p.blockhash });
  tx.add(createTransferCheckedInstruction(from, p.mint, to, p.relayer, p.amount, p.decimals));
  if (p.close) tx.add(createCloseAccountInstruction(from, p.refundTo, p.relayer));
  return tx;
}
