// The sweep a Solana burner signs after detection (docs/SOLANA.md, "The sweep"). Shared by the payer's
// client, which builds and signs it, and the service, which rebuilds it from what the session owes and
// co-signs it as fee payer only when the two messages are the same bytes. Imports only web3.js and
// spl-token: the client library runs in browsers.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
// biome-ignore lint/style/useNodejsImportProtocol: "node:buffer" would not resolve in a browser bundle
import { Buffer } from "buffer";

/** How the native coin is named where a token is expected (the wrapped-SOL mint, as Jupiter spells it). */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";
/** USDC's decimals on Solana: TransferChecked states them, so a wrong mint fails on chain. */
export const USDC_DECIMALS = 6;

/** One payment of the sweep: to a wallet (its associated USDC account for USDC), base units or lamports. */
export interface SweepLeg {
  to: string;
  amount: bigint;
}

export interface SweepParams {
  /** The burner: the deposit's owner and the sweep's only signer besides the fee payer. */
  burner: string;
  /** The relayer: the fee payer, and nothing else. */
  feePayer: string;
  /** The deposited token: the USDC mint, or NATIVE_MINT for SOL. */
  token: string;
  /** In this order; legs of 0 are left out. */
  legs: readonly SweepLeg[];
  /** A recent blockhash (GET /solana/blockhash). */
  blockhash: string;
  /**
   * Flow D (docs/STEALTH.md): the first leg pays a fresh stealth address, which has no USDC account
   * yet, so the sweep opens it first (the idempotent form, the fee payer paying its rent). USDC only:
   * a SOL sweep ignores it.
   */
  openFirstLeg?: boolean | undefined;
}

/**
 * The sweep, unsigned: one transfer per leg out of the burner (SPL TransferChecked from its associated
 * USDC account, or a System transfer of lamports), fee payer the relayer. No other instruction but,
 * with `openFirstLeg`, the creation of the first leg's USDC account: nothing the fee payer could be
 * made to pay for besides the transaction's fee and that one account's rent.
 */
export function buildSolanaSweep(p: SweepParams): Transaction {
  const burner = new PublicKey(p.burner);
  const feePayer = new PublicKey(p.feePayer);
  const tx = new Transaction({ feePayer, recentBlockhash: p.blockhash });
  const first = p.legs.find((l) => l.amount > 0n);
  // Lamports open the account they pay by themselves: only a USDC leg needs its account created.
  if (p.openFirstLeg === true && first !== undefined && p.token !== NATIVE_MINT) {
    const mint = new PublicKey(p.token);
    const owner = new PublicKey(first.to);
    tx.add(
      createAssociatedTokenAccountIdempotentInstruction(
        feePayer,
        getAssociatedTokenAddressSync(mint, owner, true),
        owner,
        mint,
      ),
    );
  }
  for (const leg of p.legs) {
    if (leg.amount <= 0n) continue;
    const to = new PublicKey(leg.to);
    if (p.token === NATIVE_MINT) {
      tx.add(SystemProgram.transfer({ fromPubkey: burner, toPubkey: to, lamports: leg.amount }));
    } else {
      const mint = new PublicKey(p.token);
      tx.add(
        createTransferCheckedInstruction(
          getAssociatedTokenAddressSync(mint, burner),
          mint,
          getAssociatedTokenAddressSync(mint, to, true),
          burner,
          leg.amount,
          USDC_DECIMALS,
        ),
      );
    }
  }
  return tx;
}

export type SweepCheck = { ok: true; transaction: Transaction } | { ok: false; reason: string };

/** Solana's packet limit: a transaction's wire form is never longer. */
const MAX_TRANSACTION_BYTES = 1232;

/**
 * The service's check of a sweep the payer's client sent (base64 wire form, signed by the burner): it
 * must be exactly the transaction buildSolanaSweep makes for these parameters and its own blockhash
 * (the same message bytes: every program id, account, flag, amount and the fee payer), and carry a
 * valid burner signature. The fee payer's signature is added by the executor when it relays.
 */
export function checkSolanaSweep(wire: string, expected: Omit<SweepParams, "blockhash">): SweepCheck {
  const bytes = Buffer.from(wire, "base64");
  if (bytes.length === 0 || bytes.length > MAX_TRANSACTION_BYTES || bytes.toString("base64") !== wire)
    return { ok: false, reason: "not a base64 Solana transaction" };
  let tx: Transaction;
  try {
    tx = Transaction.from(bytes);
  } catch {
    return { ok: false, reason: "not a serialized Solana transaction (legacy message)" };
  }
  if (tx.recentBlockhash === undefined) return { ok: false, reason: "the transaction has no blockhash" };
  const want = buildSolanaSweep({ ...expected, blockhash: tx.recentBlockhash });
  let message: Buffer;
  try {
    message = tx.serializeMessage();
  } catch {
    return { ok: false, reason: "the transaction's message cannot be serialized" };
  }
  if (!message.equals(want.serializeMessage()))
    return {
      ok: false,
      reason: "the transaction is not the sweep this session owes (destination, amounts, fees, fee payer)",
    };
  const burner = new PublicKey(expected.burner);
  const signed = tx.signatures.find((s) => s.publicKey.equals(burner));
  if (signed?.signature == null || !tx.verifySignatures(false))
    return { ok: false, reason: "the burner's signature is missing or invalid" };
  return { ok: true, transaction: tx };
}
