// The withdrawal of a Solana stealth address (docs/STEALTH.md, "Withdrawal on Solana"): its whole USDC
// balance to a destination of the recipient's choosing, the relayer paying the fee. Shared by the
// service, which builds it for POST /stealth/withdraw/solana/prepare and rebuilds it to check what comes
// back signed, and the recipient's client, which checks what it is asked to sign. Imports only web3.js
// and spl-token: the client library runs in browsers.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, Transaction } from "@solana/web3.js";
// biome-ignore lint/style/useNodejsImportProtocol: "node:buffer" would not resolve in a browser bundle
import { Buffer } from "buffer";
import { USDC_DECIMALS } from "./sweep.ts";

export interface StealthWithdrawParams {
  /** The stealth address: owner of the USDC account emptied, and the only signer besides the fee payer. */
  stealthAddress: string;
  /** The recipient's wallet: its associated USDC account receives the balance. */
  destination: string;
  /** The relayer: fee payer, payer of the destination's account if missing, and the closed account's rent. */
  feePayer: string;
  mint: string;
  /** The stealth address's whole USDC balance, base units. */
  amount: bigint;
  /** A recent blockhash. */
  blockhash: string;
}

/**
 * The withdrawal, unsigned, three instructions and nothing else:
 *   1. create the destination's associated USDC account if missing (the idempotent form, paid by the
 *      relayer; a no-op when it exists, so the message does not depend on the chain's state),
 *   2. TransferChecked of the whole balance from the stealth address's account to it,
 *   3. close the emptied stealth account, its rent to the relayer (which paid for the destination's).
 */
export function buildStealthWithdrawal(p: StealthWithdrawParams): Transaction {
  const mint = new PublicKey(p.mint);
  const stealth = new PublicKey(p.stealthAddress);
  const destination = new PublicKey(p.destination);
  const feePayer = new PublicKey(p.feePayer);
  const from = getAssociatedTokenAddressSync(mint, stealth);
  // allowOwnerOffCurve: a destination may be a program-derived address (a multisig vault).
  const to = getAssociatedTokenAddressSync(mint, destination, true);
  return new Transaction({ feePayer, recentBlockhash: p.blockhash }).add(
    createAssociatedTokenAccountIdempotentInstruction(feePayer, to, destination, mint),
    createTransferCheckedInstruction(from, mint, to, stealth, p.amount, USDC_DECIMALS),
    createCloseAccountInstruction(from, feePayer, stealth),
  );
}

export type StealthWithdrawCheck = { ok: true; transaction: Transaction } | { ok: false; reason: string };

/** Solana's packet limit: a transaction's wire form is never longer. */
const MAX_TRANSACTION_BYTES = 1232;

/**
 * The service's check of a withdrawal sent back signed (base64 wire form): exactly the transaction
 * buildStealthWithdrawal makes for these parameters and its own blockhash (the same message bytes:
 * every program, account, amount and the fee payer), carrying the stealth address's valid ed25519
 * signature (raw-scalar EdDSA verifies as ordinary ed25519). The fee payer signs when it relays.
 */
export function checkStealthWithdrawal(
  wire: string,
  expected: Omit<StealthWithdrawParams, "blockhash">,
): StealthWithdrawCheck {
  const bytes = Buffer.from(wire, "base64");
  if (bytes.length === 0 || bytes.length > MAX_TRANSACTION_BYTES || bytes.toString("base64") !== wire)
    return { ok: false, reason: "not a base64 Solana transaction" };
  let tx: Transaction;
  let message: Buffer;
  try {
    tx = Transaction.from(bytes);
    message = tx.serializeMessage();
  } catch {
    return { ok: false, reason: "not a serialized Solana transaction (legacy message)" };
  }
  if (tx.recentBlockhash === undefined) return { ok: false, reason: "the transaction has no blockhash" };
  const want = buildStealthWithdrawal({ ...expected, blockhash: tx.recentBlockhash });
  if (!message.equals(want.serializeMessage()))
    return {
      ok: false,
      reason: `it is not the withdrawal prepared for this address: the whole balance (${expected.amount}) to ${expected.destination}, fee payer ${expected.feePayer}, and nothing else`,
    };
  const stealth = new PublicKey(expected.stealthAddress);
  const signed = tx.signatures.find((s) => s.publicKey.equals(stealth));
  // verifySignatures(false): every signature present must verify; the fee payer's is still missing.
  if (signed?.signature == null || !tx.verifySignatures(false))
    return { ok: false, reason: "the stealth address's signature is missing or invalid" };
  return { ok: true, transaction: tx };
}
