// What a Solana burner signs so the service can bounce its USDC later (docs/SOLANA.md, "The bounce").
// Shared by the payer's client, which builds and signs it, and the service, which rebuilds it from
// what it expects and relays it only when the client's transaction does the same (whatever client
// compiled it). Imports only web3.js, spl-token and noble: the client library runs in browsers.
import {
  AuthorityType,
  createApproveInstruction,
  createSetAuthorityInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, Transaction, TransactionInstruction, type VersionedTransaction } from "@solana/web3.js";
// web3.js takes Buffers: the bare name is Node's own module in Node and, in a browser bundle, the
// polyfill web3.js itself depends on.
// biome-ignore lint/style/useNodejsImportProtocol: "node:buffer" would not resolve in a browser bundle
import { Buffer } from "buffer";
import { effectDiffers, readClientTransaction, validSignature } from "./client-transaction.ts";

/** SPL Memo v2: fails the transaction unless every account it is given signed it. */
export const MEMO_PROGRAM_ID = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

/** The relayer's allowance on the burner's token account: all of it, since a bounce returns the whole balance. */
export const BOUNCE_ALLOWANCE = 2n ** 64n - 1n;

const STATEMENT_PREFIX = "deposit-settlement bounce v1";

/**
 * The refund-address statement the burner signs, as the memo of its setup transaction: names the
 * session and the one address its USDC may be bounced to. The transaction's ed25519 signature by the
 * burner covers it, and Memo v2 checks that signature on chain, so the statement is public and lasting.
 */
export const bounceStatement = (sessionId: string, refundTo: string): string =>
  `${STATEMENT_PREFIX} session=${sessionId} refund_to=${refundTo}`;

/** The session id and refund address of a statement, or null when it is not one. */
export function parseBounceStatement(memo: string): { sessionId: string; refundTo: string } | null {
  const m =
    /^deposit-settlement bounce v1 session=([0-9a-f-]{36}) refund_to=([1-9A-HJ-NP-Za-km-z]{32,44})$/.exec(
      memo,
    );
  return m?.[1] !== undefined && m[2] !== undefined ? { sessionId: m[1], refundTo: m[2] } : null;
}

export interface BounceSetupParams {
  sessionId: string;
  /** The burner: owner of the token account, the statement's signer. */
  burner: PublicKey;
  /** Where a bounce sends the USDC (its associated token account): a wallet, on the ed25519 curve. */
  refundTo: PublicKey;
  /** The service's relayer: fee payer, delegate and close authority. */
  relayer: PublicKey;
  /** The USDC mint. */
  mint: PublicKey;
  /** A recent blockhash (GET /solana/blockhash). */
  blockhash: string;
}

/** The burner's associated USDC account: where deposits land and what the relayer may move. */
export const burnerTokenAccount = (burner: PublicKey, mint: PublicKey): PublicKey =>
  getAssociatedTokenAddressSync(mint, burner);

/**
 * The setup transaction, unsigned: the statement (a memo the burner signs), the relayer approved as
 * delegate of the burner's USDC account for the whole balance, and made its close authority, so the
 * bounce can close the account it empties (then only the burner's key moves what comes later). Fee
 * payer: the relayer. It opens no account: the service relays it only once a deposit is recorded, and
 * that deposit opened the account (src/domain/bounce.ts).
 */
export function buildBounceSetup(p: BounceSetupParams): Transaction {
  const account = burnerTokenAccount(p.burner, p.mint);
  const memo = new TransactionInstruction({
    programId: MEMO_PROGRAM_ID,
    keys: [{ pubkey: p.burner, isSigner: true, isWritable: false }],
    data: Buffer.from(bounceStatement(p.sessionId, p.refundTo.toBase58()), "utf8"),
  });
  const tx = new Transaction({ feePayer: p.relayer, recentBlockhash: p.blockhash });
  tx.add(
    memo,
    createApproveInstruction(account, p.relayer, p.burner, BOUNCE_ALLOWANCE),
    createSetAuthorityInstruction(account, p.burner, AuthorityType.CloseAccount, p.relayer),
  );
  return tx;
}

export type BounceSetupCheck =
  | { ok: true; refundTo: string; transaction: VersionedTransaction }
  | { ok: false; reason: string };

/**
 * The service's check of a setup transaction a client sent (base64 wire form, legacy or v0, signed by
 * the burner): it must do exactly what the transaction `buildBounceSetup` makes for this session,
 * burner, relayer and mint and the refund address its memo names does (src/chains/solana/
 * client-transaction.ts: every instruction, account, flag and the fee payer; the accounts in any
 * order), carry a valid burner signature, and pay no one else. The relayer's own signature is added
 * by the caller when it relays the bytes checked here.
 */
export function checkBounceSetup(
  wire: string,
  expected: { sessionId: string; burner: PublicKey; relayer: PublicKey; mint: PublicKey },
): BounceSetupCheck {
  const read = readClientTransaction(wire);
  if (!read.ok) return read;
  const first = read.read.instructions[0];
  if (first === undefined || !first.programId.equals(MEMO_PROGRAM_ID))
    return { ok: false, reason: "the first instruction must be the refund statement memo" };
  const statement = parseBounceStatement(first.data.toString("utf8"));
  if (statement === null || statement.sessionId !== expected.sessionId)
    return { ok: false, reason: "the memo is not this session's refund statement" };
  let refundTo: PublicKey;
  try {
    refundTo = new PublicKey(statement.refundTo);
  } catch {
    return { ok: false, reason: "the refund address is not a Solana address" };
  }
  if (!PublicKey.isOnCurve(refundTo.toBytes()))
    return { ok: false, reason: "the refund address must be a wallet (an ed25519 public key)" };
  if (refundTo.equals(expected.burner) || refundTo.equals(expected.relayer))
    return { ok: false, reason: "the refund address must not be the burner or the relayer" };
  const want = buildBounceSetup({ ...expected, refundTo, blockhash: read.read.blockhash });
  const differs = effectDiffers(read.read, want);
  if (differs !== null)
    return { ok: false, reason: `the transaction is not the bounce setup for this session: ${differs}` };
  if (validSignature(read.read.transaction, expected.burner) === null)
    return { ok: false, reason: "the burner's signature is missing or invalid" };
  return { ok: true, refundTo: refundTo.toBase58(), transaction: read.read.transaction };
}
