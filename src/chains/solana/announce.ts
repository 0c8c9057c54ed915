// A Flow D session's announcement on Solana (docs/STEALTH.md, "The announcement on Solana"): one Memo
// v2 transaction from the relayer whose text the recipient's scanner parses. Idempotent by command id:
// the memo is co-signed by a marker key derived from the relayer's key and the step key, so the
// marker's own transaction history says whether this command's announcement already landed (a retry,
// or a new executor after a crash, finds it there and sends nothing again).
import { hmac } from "@noble/hashes/hmac";
import { sha256 } from "@noble/hashes/sha2";
import { utf8ToBytes } from "@noble/hashes/utils";
import { getBase58Decoder } from "@solana/kit";
import {
  type Connection,
  Keypair,
  type PublicKey,
  Transaction,
  TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import { SOLANA_STEALTH_SCHEME } from "../../stealth/ed25519.ts";
import { solanaAnnouncementMemo } from "../../stealth/solana-memo.ts";
import type { AnnounceCommand, SolanaMined, StepTry } from "../adapter.ts";
import { StepRefused, StepReverted, UpstreamUnavailable } from "../execution-errors.ts";
import { MEMO_PROGRAM_ID } from "./bounce-setup.ts";
import { parseSolanaAddress } from "./config.ts";
import { relayerSpend } from "./relayer-spend.ts";
import { solanaRpcCall } from "./rpc-call.ts";

const COMMITMENT = "confirmed" as const;
const signatureText = getBase58Decoder();

/**
 * The marker of one announcement step: an ed25519 key whose seed is HMAC-SHA256(relayer secret key,
 * step key). Only the relayer can make it, it is the same on every try and in every process, and it
 * appears in no other transaction.
 */
export function announcementMarker(relayer: Keypair, stepKey: string): Keypair {
  return Keypair.fromSeed(
    hmac(sha256, relayer.secretKey, utf8ToBytes(`${SOLANA_STEALTH_SCHEME}/announce/${stepKey}`)),
  );
}

/** The unsigned announcement: the memo, its one account the marker (Memo v2 requires it to sign). */
export function buildAnnouncement(p: {
  memo: string;
  marker: PublicKey;
  feePayer: PublicKey;
  blockhash: string;
  lastValidBlockHeight: number;
}): Transaction {
  return new Transaction({
    feePayer: p.feePayer,
    blockhash: p.blockhash,
    lastValidBlockHeight: p.lastValidBlockHeight,
  }).add(
    new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [{ pubkey: p.marker, isSigner: true, isWritable: false }],
      data: Buffer.from(p.memo, "utf8"),
    }),
  );
}

export function createSolanaAnnouncer(deps: {
  chainId: number;
  connection: Connection;
  relayer: Keypair;
  pollMs?: number;
  signal: AbortSignal;
}) {
  const { connection, relayer } = deps;
  const pollMs = deps.pollMs ?? 400;
  const rpc = solanaRpcCall(deps.chainId);

  /** The landed transaction as executor.results reports it: its signature, slot and the relayer's spend in lamports. */
  async function mined(signature: string): Promise<SolanaMined | null> {
    const tx = await rpc("getTransaction", () =>
      connection.getTransaction(signature, { commitment: COMMITMENT, maxSupportedTransactionVersion: 0 }),
    );
    if (tx === null) return null;
    return {
      txHash: signature,
      blockNumber: BigInt(tx.slot),
      gas: relayerSpend(tx.meta),
    };
  }

  return async function announce(c: AnnounceCommand, step: StepTry): Promise<SolanaMined> {
    if (c.scheme !== SOLANA_STEALTH_SCHEME)
      throw new StepRefused(`a Solana chain announces only ${SOLANA_STEALTH_SCHEME}, not ${c.scheme}`, null);
    if (parseSolanaAddress(c.stealthAddress) === null || parseSolanaAddress(c.ephemeralPubkey) === null)
      throw new StepRefused("the announcement's stealth address or ephemeral key is not base58", null);
    const memo = solanaAnnouncementMemo(c);
    const marker = announcementMarker(relayer, step.key);

    // Landed before (an earlier try, or another process before a crash): reported, not sent again.
    const history = await rpc("getSignaturesForAddress", () =>
      connection.getSignaturesForAddress(marker.publicKey, { limit: 10 }, COMMITMENT),
    );
    const landed = history.find((s) => s.err === null);
    if (landed) {
      const found = await mined(landed.signature);
      if (found) return found;
    }

    const { blockhash, lastValidBlockHeight } = await rpc("getLatestBlockhash", () =>
      connection.getLatestBlockhash(COMMITMENT),
    );
    const tx = buildAnnouncement({
      memo,
      marker: marker.publicKey,
      feePayer: relayer.publicKey,
      blockhash,
      lastValidBlockHeight,
    });
    tx.sign(relayer, marker);
    const wire = tx.serialize();
    // Simulated first: a transaction that would fail is refused before the relayer pays its fee.
    const simulated = await rpc("simulateTransaction", () =>
      connection.simulateTransaction(VersionedTransaction.deserialize(wire), { commitment: COMMITMENT }),
    );
    if (simulated.value.err !== null)
      throw new StepRefused(
        `the announcement fails in simulation: ${JSON.stringify(simulated.value.err)}`,
        null,
      );
    const signature = signatureText.decode(tx.signature as Uint8Array);
    await rpc("sendTransaction", () =>
      connection.sendRawTransaction(wire, { preflightCommitment: COMMITMENT }),
    );
    await step.onSubmitted(signature);
    for (;;) {
      const status = (
        await rpc("getSignatureStatuses", () =>
          connection.getSignatureStatuses([signature], { searchTransactionHistory: true }),
        )
      ).value[0];
      if (status?.err)
        throw new StepReverted(`the announcement failed on chain: ${JSON.stringify(status.err)}`, null);
      if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") {
        const found = await mined(signature);
        if (found) return found;
      }
      if (status == null) {
        const height = await rpc("getBlockHeight", () => connection.getBlockHeight(COMMITMENT));
        // Not landed and past its blockhash: it never can, so the next try sends a new one.
        if (height > lastValidBlockHeight)
          throw new UpstreamUnavailable(`the announcement ${signature} expired before it landed`, null);
      }
      if (deps.signal.aborted) throw deps.signal.reason;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
}
