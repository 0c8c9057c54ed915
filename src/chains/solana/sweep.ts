// The sweep a Solana burner signs after detection (docs/SOLANA.md, "The sweep"). Shared by the payer's
// client, which builds and signs it, and the service, which rebuilds it from what the session owes and
// co-signs it as fee payer only when the client's transaction does the same (whatever client compiled
// it). Imports only web3.js, spl-token and noble: the client library runs in browsers.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, SystemProgram, Transaction, type VersionedTransaction } from "@solana/web3.js";
import { effectDiffers, readClientTransaction, validSignature } from "./client-transaction.ts";

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

export type SweepCheck = { ok: true; transaction: VersionedTransaction } | { ok: false; reason: string };

/**
 * The service's check of a sweep the payer's client sent (base64 wire form, legacy or v0, signed by
 * the burner): it must do exactly what the transaction buildSolanaSweep makes for these parameters
 * does (src/chains/solana/client-transaction.ts: the fee payer, every account with its signer and
 * writable flags, every instruction with its program, accounts, amount and data; the accounts in any
 * order), and carry a valid burner signature. The fee payer's signature is added by the executor
 * when it relays the bytes checked here.
 */
export function checkSolanaSweep(wire: string, expected: Omit<SweepParams, "blockhash">): SweepCheck {
  const read = readClientTransaction(wire);
  if (!read.ok) return read;
  const want = buildSolanaSweep({ ...expected, blockhash: read.read.blockhash });
  const differs = effectDiffers(read.read, want);
  if (differs !== null)
    return {
      ok: false,
      reason: `the transaction is not the sweep this session owes (destination, amounts, fees, fee payer): ${differs}`,
    };
  if (validSignature(read.read.transaction, new PublicKey(expected.burner)) === null)
    return { ok: false, reason: "the burner's signature is missing or invalid" };
  return { ok: true, transaction: read.read.transaction };
}
