// A transaction a payer's client sent, read for what it does (docs/SOLANA.md, "What the service
// checks"). Clients compile the same instructions into different bytes: web3.js's legacy Transaction,
// its VersionedTransaction (v0) and @solana/kit order the accounts differently. The service therefore
// compares the effect (fee payer, each account's signer and writable flags, the instructions in order
// with their accounts and data) with the transaction it expects, never the bytes; and it signs and
// sends the bytes it read, so what it checked is exactly what lands. Imports only web3.js and noble
// (browsers).
import { ed25519 } from "@noble/curves/ed25519";
import {
  type PublicKey,
  type Transaction,
  type TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
// biome-ignore lint/style/useNodejsImportProtocol: "node:buffer" would not resolve in a browser bundle
import { Buffer } from "buffer";

/** Solana's packet limit: a transaction's wire form is never longer. */
const MAX_TRANSACTION_BYTES = 1232;

export interface ClientTransaction {
  /** As received: the relayer signs and sends these bytes (legacy or v0). */
  transaction: VersionedTransaction;
  feePayer: PublicKey;
  blockhash: string;
  /** In order, each account with its flags in the message. */
  instructions: TransactionInstruction[];
}

export type Read = { ok: true; read: ClientTransaction } | { ok: false; reason: string };

/**
 * A base64 wire transaction, legacy or v0, read. Refused: what does not decode, a wire form that is
 * not the canonical encoding of what it decodes to (trailing bytes, padded lengths), an account
 * listed twice, and a v0 message that loads accounts from address lookup tables (what they hold is
 * the chain's, not the message's, and may change before it lands).
 */
export function readClientTransaction(wire: string): Read {
  const bytes = Buffer.from(wire, "base64");
  if (bytes.length === 0 || bytes.length > MAX_TRANSACTION_BYTES || bytes.toString("base64") !== wire)
    return { ok: false, reason: "not a base64 Solana transaction" };
  let transaction: VersionedTransaction;
  let decompiled: TransactionMessage;
  try {
    transaction = VersionedTransaction.deserialize(bytes);
    if (transaction.message.addressTableLookups.length > 0)
      return {
        ok: false,
        reason: "address lookup tables are not accepted: list every account in the message",
      };
    if (!Buffer.from(transaction.serialize()).equals(bytes))
      return { ok: false, reason: "not the canonical encoding of a Solana transaction" };
    decompiled = TransactionMessage.decompile(transaction.message);
  } catch {
    return { ok: false, reason: "not a serialized Solana transaction (legacy or v0 message)" };
  }
  const keys = transaction.message.staticAccountKeys.map((k) => k.toBase58());
  if (new Set(keys).size !== keys.length) return { ok: false, reason: "an account is listed twice" };
  return {
    ok: true,
    read: {
      transaction,
      feePayer: decompiled.payerKey,
      blockhash: decompiled.recentBlockhash,
      instructions: decompiled.instructions,
    },
  };
}

/**
 * What differs between a client's transaction and the one the service expects (built by web3.js,
 * unsigned), or null when they do the same: same fee payer; the same accounts, each a signer and
 * writable exactly as there (so no other signer, no other writable account); the same instructions
 * in the same order, each with the same program, accounts in order, and data. The blockhash is not
 * compared: the caller checks it against the chain.
 */
export function effectDiffers(read: ClientTransaction, want: Transaction): string | null {
  const expected = want.compileMessage();
  if (!read.feePayer.equals(expected.accountKeys[0] as PublicKey)) return "another fee payer";
  const roles = new Map(
    expected.accountKeys.map((k, i) => [
      k.toBase58(),
      role(expected.isAccountSigner(i), expected.isAccountWritable(i)),
    ]),
  );
  const message = read.transaction.message;
  if (message.staticAccountKeys.length !== roles.size) return "other accounts";
  for (const [i, key] of message.staticAccountKeys.entries()) {
    const wanted = roles.get(key.toBase58());
    if (wanted === undefined) return `an account it does not need (${key.toBase58()})`;
    if (wanted !== role(message.isAccountSigner(i), message.isAccountWritable(i)))
      return `${key.toBase58()} as another signer or writable flag`;
  }
  if (read.instructions.length !== want.instructions.length) return "other instructions";
  for (const [i, ix] of read.instructions.entries()) {
    const w = want.instructions[i] as TransactionInstruction;
    const same =
      ix.programId.equals(w.programId) &&
      Buffer.from(ix.data).equals(w.data) &&
      ix.keys.length === w.keys.length &&
      ix.keys.every((k, j) => k.pubkey.equals((w.keys[j] as (typeof w.keys)[number]).pubkey));
    if (!same) return `instruction ${i} (${w.programId.toBase58()}) is another`;
  }
  return null;
}

const role = (signer: boolean, writable: boolean) => `${signer ? "s" : "-"}${writable ? "w" : "-"}`;

/** `signer`'s signature on the transaction when it is present and valid for its message; else null. */
export function validSignature(tx: VersionedTransaction, signer: PublicKey): Uint8Array | null {
  const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures);
  const index = signers.findIndex((k) => k.equals(signer));
  const signature = index < 0 ? undefined : tx.signatures[index];
  if (signature === undefined || signature.every((b) => b === 0)) return null;
  try {
    return ed25519.verify(signature, tx.message.serialize(), signer.toBytes()) ? signature : null;
  } catch {
    return null;
  }
}

/** Whether every signature the message requires is present and valid. */
export const fullySigned = (tx: VersionedTransaction): boolean =>
  tx.message.staticAccountKeys
    .slice(0, tx.message.header.numRequiredSignatures)
    .every((k) => validSignature(tx, k) !== null);
