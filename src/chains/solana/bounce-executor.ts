// The executor's side of the Solana bounce (docs/SOLANA.md, "The bounce"): relays the setup a burner
// signed (once its session holds a deposit), and moves the burner's whole balance to its signed refund address as the
// delegate that setup approved. Every method is one try, safe to run again after a crash: the setup is
// the same signed bytes (the chain refuses a second copy), and a bounce that landed before the crash
// is found again among the burner account's transactions instead of being sent twice.

import { getBase58Decoder } from "@solana/kit";
import { getAssociatedTokenAddressSync, getMint } from "@solana/spl-token";
import {
  type Connection,
  type Finality,
  type Keypair,
  PublicKey,
  type Transaction,
  type TransactionSignature,
  type VersionedTransaction,
} from "@solana/web3.js";
import type { RelaySolanaRefundCommand, SolanaBounceCommand, SolanaBounceSetupCommand } from "../adapter.ts";
import { StepRefused } from "../execution-errors.ts";
import { buildBounce, planBounce } from "./bounce.ts";
import { burnerTokenAccount, checkBounceSetup } from "./bounce-setup.ts";
import { readClientTransaction } from "./client-transaction.ts";
import { relayerSpend } from "./relayer-spend.ts";
import { tokenAccountOrNull } from "./token-accounts.ts";

/** What a landed transaction reports on executor.results: its signature, slot and the relayer's spend (lamports). */
export interface Landed {
  txHash: string;
  blockNumber: bigint;
  gas: { gasUsed: bigint; feeWei: bigint } | null;
}

export interface SolanaBouncer {
  /** `sessionId`: the session the setup's statement must name. */
  relaySetup(command: SolanaBounceSetupCommand, sessionId: string): Promise<Landed>;
  bounce(command: SolanaBounceCommand): Promise<Landed>;
  /** Co-signs as fee payer and relays a payer's refund the gateway checked (POST /sessions/:id/solana-refund). */
  relayRefund(command: RelaySolanaRefundCommand): Promise<Landed>;
}

/** How long a sent transaction may take to reach `confirmed` before the try fails (and is retried). */
const CONFIRM_TIMEOUT_MS = 30_000;
const COMMITMENT: Finality = "confirmed";

export function createSolanaBouncer(deps: {
  connection: Connection;
  relayer: Keypair;
  mint: string;
}): SolanaBouncer {
  const { connection, relayer } = deps;
  const mint = new PublicKey(deps.mint);

  /** The transaction's slot and fee once it is confirmed without error; null while it is not known. */
  async function landed(signature: TransactionSignature): Promise<Landed | null> {
    const tx = await connection.getTransaction(signature, {
      commitment: COMMITMENT,
      maxSupportedTransactionVersion: 0,
    });
    if (tx === null) return null;
    if (tx.meta?.err)
      throw new StepRefused(`transaction ${signature} failed: ${JSON.stringify(tx.meta.err)}`, null);
    // What the relayer lost to it (fee and any rent), from the chain's own record of its balance.
    return { txHash: signature, blockNumber: BigInt(tx.slot), gas: relayerSpend(tx.meta) };
  }

  async function sendAndConfirm(tx: Transaction | VersionedTransaction): Promise<Landed> {
    const signature = await connection.sendRawTransaction(tx.serialize());
    const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
    while (Date.now() < deadline) {
      const found = await landed(signature);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 400));
    }
    throw new Error(`transaction ${signature} was not confirmed within ${CONFIRM_TIMEOUT_MS} ms`);
  }

  return {
    async relaySetup(command, sessionId) {
      const burner = new PublicKey(command.burner);
      // Checked again here: the executor co-signs only the setup the gateway would accept.
      const checked = checkBounceSetup(command.transaction, {
        sessionId,
        burner,
        relayer: relayer.publicKey,
        mint,
      });
      if (!checked.ok) throw new StepRefused(`bounce setup refused: ${checked.reason}`, null);
      const tx = checked.transaction;
      tx.sign([relayer]);
      // The same signed bytes every try: landed before a crash, it is found and not sent again.
      const already = await landed(signatureOf(tx));
      try {
        return already ?? (await sendAndConfirm(tx));
      } catch (err) {
        // Refused in preflight, nothing spent: signed too long before the deposit (its blockhash
        // expired), or the account it approves is gone. Trying again cannot change either.
        const why = err instanceof Error ? err.message : String(err);
        if (/BlockhashNotFound|blockhash not found|simulation failed/i.test(why))
          throw new StepRefused(`bounce setup not relayed: ${why.replace(/\s+/g, " ").slice(0, 200)}`, null);
        throw err;
      }
    },

    async relayRefund(command) {
      // The bytes the gateway checked, legacy or v0: signed as they are, so what lands is what was checked.
      const read = readClientTransaction(command.transaction);
      if (!read.ok) throw new StepRefused(`the refund is refused: ${read.reason}`, null);
      // The gateway checked every instruction; the relayer signs only as the fee payer of a
      // transaction the burner alone signed besides it, and never as an instruction's account.
      const burner = new PublicKey(command.burner);
      const { message } = read.read.transaction;
      const signers = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures);
      const feePayerOnly =
        read.read.feePayer.equals(relayer.publicKey) &&
        signers.length === 2 &&
        signers[1]?.equals(burner) === true &&
        read.read.instructions.every((ix) => ix.keys.every((k) => !k.pubkey.equals(relayer.publicKey)));
      if (!feePayerOnly)
        throw new StepRefused("the refund must be the burner's, the relayer only its fee payer", null);
      const tx = read.read.transaction;
      tx.sign([relayer]);
      // The same signed bytes every try: landed before a crash, it is found and not sent again.
      const already = await landed(signatureOf(tx));
      return already ?? sendAndConfirm(tx);
    },

    async bounce(command) {
      const burner = new PublicKey(command.burner);
      const refundTo = new PublicKey(command.to);
      const tokenMint = new PublicKey(command.mint);
      if (!tokenMint.equals(mint)) throw new StepRefused(`only USDC (${mint.toBase58()}) is bounced`, null);
      const from = burnerTokenAccount(burner, tokenMint);
      const account = await tokenAccountOrNull(connection, from, COMMITMENT);
      const refundAccount = await tokenAccountOrNull(
        connection,
        getAssociatedTokenAddressSync(tokenMint, refundTo),
        COMMITMENT,
      );
      const plan = planBounce(account, refundAccount, relayer.publicKey);
      switch (plan.kind) {
        case "bounce": {
          const { decimals } = await getMint(connection, tokenMint, COMMITMENT);
          const { blockhash } = await connection.getLatestBlockhash(COMMITMENT);
          const tx = buildBounce({
            burner,
            refundTo,
            relayer: relayer.publicKey,
            mint: tokenMint,
            decimals,
            ...plan,
            blockhash,
          });
          tx.sign(relayer);
          return sendAndConfirm(tx);
        }
        case "empty": {
          // Emptied by a bounce of ours that landed before a crash: report that one, not a failure.
          const ours = await previousBounce(from);
          if (ours) return ours;
          throw new StepRefused("nothing to bounce: the burner holds none of it", null);
        }
        case "not_delegated":
          throw new StepRefused(
            "the relayer is not the burner's delegate for its balance (revoked or never set up)",
            null,
          );
        case "no_refund_account":
          throw new StepRefused(
            "the refund address has no USDC account; the burner's key can still move the money",
            null,
          );
        default:
          return plan satisfies never;
      }
    },
  };

  /** The newest successful transaction on the burner's token account that the relayer alone signed. */
  async function previousBounce(account: PublicKey): Promise<Landed | null> {
    const recent = await connection.getSignaturesForAddress(account, { limit: 10 }, COMMITMENT);
    for (const s of recent) {
      if (s.err !== null) continue;
      const tx = await connection.getTransaction(s.signature, {
        commitment: COMMITMENT,
        maxSupportedTransactionVersion: 0,
      });
      const keys = tx?.transaction.message.getAccountKeys().staticAccountKeys ?? [];
      const signers = tx?.transaction.message.header.numRequiredSignatures ?? 0;
      if (signers === 1 && keys[0]?.equals(relayer.publicKey)) return landed(s.signature);
    }
    return null;
  }
}

const base58 = getBase58Decoder();

/** A signed transaction's id on chain: its first (the fee payer's) signature in base58. */
function signatureOf(tx: VersionedTransaction): TransactionSignature {
  const first = tx.signatures[0];
  if (first === undefined || first.every((b) => b === 0)) throw new Error("the transaction is not signed");
  // kit's "decoder" turns bytes into their base58 string.
  return base58.decode(first);
}
