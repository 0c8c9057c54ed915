import { type Connection, PublicKey, type VersionedTransactionResponse } from "@solana/web3.js";
import { isOurSolanaAnnouncement, type SolanaStealthDerivation } from "../../stealth/ed25519.ts";
import { parseSolanaAnnouncementMemo } from "../../stealth/solana-memo.ts";
import { ClientError } from "../errors.ts";

/** SPL Memo v2, the program whose instruction data is the announcement's text. */
export const MEMO_PROGRAM = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

export interface ScanSolanaStealthAnnouncementsParameters {
  /** The recipient's view seed (32 bytes, the first half of its view keypair's secret key). */
  viewSeed: Uint8Array;
  /** The recipient's spend public key (base58), as registered in `sol_spend_pubkey`. */
  spendPubkey: string;
  /**
   * Whose transaction history to read: the service's relayer, which sends every announcement (the
   * `fee_payer` of a Solana checkout's sweep terms), or the Memo program itself (every memo on the chain).
   */
  announcer: string;
  /** Read only transactions newer than this signature (the newest one an earlier scan saw). */
  until?: string | undefined;
  /** How many of the newest transactions to read at most. Default 1,000. */
  maxTransactions?: number | undefined;
}

/** One payment to the recipient, as announced by a memo on chain. */
export interface SolanaStealthPayment extends SolanaStealthDerivation {
  /** The announcement's transaction signature and slot. */
  signature: string;
  slot: number;
}

/** `network_error` (retryable): the RPC did not answer. */
export type ScanSolanaStealthAnnouncementsErrorType = ClientError<"network_error">;

const PAGE = 1_000;
const text = new TextDecoder("utf-8", { fatal: true });

/**
 * The announcements a transaction carries (docs/STEALTH.md, "The announcement on Solana"): the text of
 * each of its Memo instructions that parses as one. A failed transaction announces nothing.
 */
export function announcementsInTransaction(tx: VersionedTransactionResponse): SolanaStealthDerivation[] {
  if (tx.meta?.err != null) return [];
  const message = tx.transaction.message;
  const keys = message.staticAccountKeys;
  const found: SolanaStealthDerivation[] = [];
  for (const ix of message.compiledInstructions) {
    if (keys[ix.programIdIndex]?.toBase58() !== MEMO_PROGRAM) continue;
    let memo: string;
    try {
      memo = text.decode(ix.data);
    } catch {
      continue; // not UTF-8: no announcement
    }
    const parsed = parseSolanaAnnouncementMemo(memo);
    if (parsed) found.push(parsed);
  }
  return found;
}

/**
 * The Solana stealth recipient's scanner (docs/STEALTH.md): reads the announcer's transaction history
 * through the recipient's own RPC (getSignaturesForAddress, then getTransaction), parses the memos and
 * keeps the announcements whose view tag, then derived address, are the recipient's. The chain alone
 * is enough; `withdrawSolanaStealth` then spends each payment with its `ephemeralPubkey`.
 *
 * @example
 * import { Connection } from "@solana/web3.js";
 * import { scanSolanaStealthAnnouncements } from "deposit-settlement/client";
 * const payments = await scanSolanaStealthAnnouncements(new Connection(rpcUrl), { viewSeed, spendPubkey, announcer: terms.fee_payer });
 */
export async function scanSolanaStealthAnnouncements(
  connection: Pick<Connection, "getSignaturesForAddress" | "getTransaction">,
  params: ScanSolanaStealthAnnouncementsParameters,
): Promise<SolanaStealthPayment[]> {
  const max = params.maxTransactions ?? PAGE;
  const announcer = new PublicKey(params.announcer);
  const keys = { viewSeed: params.viewSeed, spendPubkey: params.spendPubkey };
  const found: SolanaStealthPayment[] = [];
  let before: string | undefined;
  let read = 0;
  try {
    while (read < max) {
      const page = await connection.getSignaturesForAddress(
        announcer,
        {
          limit: Math.min(PAGE, max - read),
          ...(before ? { before } : {}),
          ...(params.until ? { until: params.until } : {}),
        },
        "confirmed",
      );
      if (page.length === 0) break;
      read += page.length;
      before = page.at(-1)?.signature;
      for (const s of page) {
        if (s.err !== null) continue;
        const tx = await connection.getTransaction(s.signature, {
          commitment: "confirmed",
          maxSupportedTransactionVersion: 0,
        });
        if (tx === null) continue;
        for (const a of announcementsInTransaction(tx))
          if (isOurSolanaAnnouncement(a, keys)) found.push({ ...a, signature: s.signature, slot: tx.slot });
      }
    }
  } catch (err) {
    throw new ClientError("network_error", `the announcements could not be read: ${messageOf(err)}`, {
      cause: err,
      retryable: true,
    });
  }
  return found;
}

const messageOf = (err: unknown): string =>
  err instanceof Error ? (err.message.split("\n")[0] ?? "") : String(err);
