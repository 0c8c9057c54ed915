import { z } from "zod";
import { STATUSES } from "../domain/types.ts";
import { solanaSweepTermsSchema } from "./solana-sweep-terms.ts";

export { type SolanaSweepTerms, solanaSweepTermsSchema } from "./solana-sweep-terms.ts";

/**
 * Wire schemas of the Solana routes (docs/SOLANA.md): the shapes a Solana developer expects.
 * Addresses are base58 strings (validated by the Solana chain's adapter, which knows the alphabet and
 * the key length), amounts decimal strings of base units or lamports, the blockhash with the
 * `lastValidBlockHeight` web3.js's `confirmTransaction` takes.
 */

/** A base58 public key as sent; the Solana port says whether it is one (32 bytes). */
export const base58 = z
  .string()
  .min(32, "must be a base58 public key")
  .max(44, "must be a base58 public key")
  .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be a base58 public key");

/** A base58 ed25519 signature (64 bytes: 86 to 88 characters). */
const signature = z
  .string()
  .min(64, "must be a base58 ed25519 signature")
  .max(88, "must be a base58 ed25519 signature")
  .regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be a base58 ed25519 signature");

export const createSolanaSessionBodySchema = z.strictObject({
  /** Base58 on the Solana chain itself; a 0x address on a configured EVM chain. */
  destination_address: z.string().min(1).max(100),
  destination_chain: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** The payer's burner, when the client has it already; else POST /sessions/:id/solana-burner. */
  burner_address: base58.optional(),
  /**
   * With `burner_address`, and only with it: the burner's ed25519 signature (base58) of
   * solanaSessionMessage, proof that the caller holds the key of the burner it asks to watch.
   */
  burner_signature: signature.optional(),
  /** Where the automatic bounce sends the balance (docs/SOLANA.md). */
  refund_address: base58.optional(),
});
export type CreateSolanaSessionBody = z.output<typeof createSolanaSessionBodySchema>;

export const createSolanaSessionResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  expires_at: z.number().int().describe("Unix seconds"),
  sweep: solanaSweepTermsSchema,
});

export const solanaBurnerBodySchema = z.strictObject({
  burner_address: base58,
  /**
   * The burner's ed25519 signature (base58) of the UTF-8 message
   * `deposit-settlement:solana-burner:<session id>`: proof that the registrant holds the key.
   */
  signature,
  /**
   * The bounce setup the burner signed (base64 wire form; docs/SOLANA.md, "The bounce"): lets the
   * service bounce the burner's USDC to the refund address its statement names, and nowhere else.
   * Relayed once the session holds a deposit; the same burner may send it in a second registration
   * (once, until the sweep is committed), signed at detection so its blockhash is fresh.
   */
  bounce_setup: z.base64().max(2_000, "a Solana transaction is at most 1232 bytes").optional(),
});

export const solanaBurnerResponseSchema = z.object({ id: z.uuid(), status: z.enum(STATUSES) });

export const blockhashQuerySchema = z.strictObject({
  chain_id: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const blockhashResponseSchema = z.object({
  blockhash: z.string(),
  lastValidBlockHeight: z.number().int(),
});

/**
 * The message a burner signs to be named at creation (POST /sessions/solana, docs/SOLANA.md): the
 * session id does not exist yet, so it names everything the body asks of the session instead, as
 * sent: `deposit-settlement:solana-session:<destination_chain>:<destination_address>:<refund_address>`
 * (the refund address empty when there is none). The signature is good only for a body asking the
 * same: a replay can open nothing but the session its payer asked for, paying the same destination.
 */
export const solanaSessionMessage = (body: {
  destination_chain: number;
  destination_address: string;
  refund_address?: string | undefined;
}): Uint8Array =>
  new TextEncoder().encode(
    `deposit-settlement:solana-session:${body.destination_chain}:${body.destination_address}:${body.refund_address ?? ""}`,
  );

/** The message a burner signs to register on a session: names the session, so it is good for no other. */
export const solanaBurnerMessage = (sessionId: string): Uint8Array =>
  new TextEncoder().encode(`deposit-settlement:solana-burner:${sessionId}`);

/**
 * POST /sessions/:id/commit with a Solana body (a Solana-origin session): the sweep the payer's client
 * built with buildSolanaSweep from the creation's `sweep` terms and signed with the burner key.
 */
export const solanaCommitBodySchema = z.strictObject({
  /** The burner-signed transaction, base64 wire form (at most 1232 bytes). */
  transaction: z.string().min(1).max(1700),
});

/** A commit body is a Solana one when it carries a transaction (the EVM body never does). */
export const isSolanaCommitBody = (body: unknown): boolean =>
  typeof body === "object" && body !== null && Object.hasOwn(body, "transaction");

/**
 * POST /sessions/:id/solana-refund (docs/SOLANA.md, "The payer's refund"): the transfer of the
 * burner's whole balance of `token` to `to`, built with buildSolanaSweep (one leg) and signed by the
 * burner, the relayer as fee payer.
 */
export const solanaRefundBodySchema = z.strictObject({
  /** The burner-signed transaction, base64 wire form (at most 1232 bytes). */
  transaction: z.string().min(1).max(1700),
  /** The wallet the money goes back to (base58). */
  to: base58,
  /** The USDC mint, or the native mint `So11111111111111111111111111111111111111112` for SOL. */
  token: base58,
});

export const solanaRefundResponseSchema = z.object({
  id: z.uuid(),
  /** The refund transaction's signature (base58): its id on chain. */
  signature: z.string(),
  to: z.string(),
  token: z.string(),
  /** Base units (USDC) or lamports (SOL), decimal. */
  amount: z.string(),
});
