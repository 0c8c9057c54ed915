import type { Keypair } from "@solana/web3.js";
import { buildSolanaSweep, NATIVE_MINT, type SweepLeg } from "../../chains/solana/sweep.ts";
import { ClientError } from "../errors.ts";
import type { SolanaSweepTerms } from "../types.ts";
import type { DetectedSolanaSession } from "./wait-for-solana-detection.ts";

/**
 * The highest platform fee the payer signs by default, bps: the most the service may ever charge
 * (its MAX_FEE_BPS, which the delegate contract enforces on EVM). On Solana the fee is a transfer the
 * burner signs, so the payer's library holds the line itself.
 */
export const DEFAULT_SOLANA_MAX_FEE_BPS = 100;

export interface SignSolanaSweepParameters {
  /** The session's burner (makeSolanaBurner). */
  burner: Keypair;
  /** The session once detected (`waitForSolanaDetection`): the sweep moves exactly its deposit. */
  session: DetectedSolanaSession;
  /** The `sweep` terms of `createSolanaSession`'s answer: fee payer, platform fee, where the delivery goes. */
  terms: SolanaSweepTerms;
  /** A recent blockhash (`getSolanaBlockhash`): the service must relay the sweep before it expires. */
  blockhash: string;
  /** The destination the payer asked for; when given, a session that pays elsewhere is refused. */
  destination?: { address: string; chainId: number } | undefined;
  /** The highest platform fee signed, bps. Default DEFAULT_SOLANA_MAX_FEE_BPS (100). */
  maxFeeBps?: number | undefined;
  /** The highest app fee signed, bps. Default 0: what an anonymous session carries. */
  maxAppFeeBps?: number | undefined;
}

export interface SignSolanaSweepReturnType {
  /** The burner-signed sweep, base64 wire form: the body of the commit (`commitSolanaSweep`). */
  transaction: string;
  /** The deposited token: the USDC mint, or the native mint for SOL. */
  token: string;
  /** What it pays, in order: the delivery, the platform fee, the app fee (legs of 0 left out). */
  legs: SweepLeg[];
}
/** `verification_failed`: the session or its terms are not what the payer holds and asked for; nothing was signed. */
export type SignSolanaSweepErrorType = ClientError<"verification_failed">;

/**
 * Builds and signs, with the burner's key, the sweep of the detected deposit (docs/SOLANA.md, "The
 * sweep"): the delivery `amount - fee - app_fee` to the terms' `sweep_to`, the platform fee
 * `floor(amount * fee_bps / 10000)` to the fee payer, the app fee to `app_fee_recipient_sol`, as SPL
 * TransferChecked (USDC) or System transfers (SOL), the service's relayer as fee payer. It is the very
 * transaction the service rebuilds and compares byte for byte (`buildSolanaSweep`, shared with it).
 *
 * Before signing it checks what the service says against what the payer holds and asked for: the
 * session is this burner's, detected, on the terms' chain, in USDC or SOL; it pays `destination`
 * (and, on Solana, the sweep goes to it); the fees are within `maxFeeBps` and `maxAppFeeBps`.
 *
 * @example
 * import { signSolanaSweep } from "deposit-settlement/client";
 * const { blockhash } = await getSolanaBlockhash(client);
 * const { transaction } = signSolanaSweep({ burner: burner.keypair, session: detected, terms: created.sweep, blockhash });
 */
export function signSolanaSweep(params: SignSolanaSweepParameters): SignSolanaSweepReturnType {
  const { burner, session, terms } = params;
  const refuse = (why: string): never => {
    throw new ClientError("verification_failed", `not signing the sweep of session ${session.id}: ${why}`);
  };
  const burnerAddress = burner.publicKey.toBase58();
  if (session.burner_address !== burnerAddress) refuse("its burner is not this key");
  if (session.status !== "detected") refuse(`it is ${session.status}, not detected`);
  if (session.source_chain_id !== terms.chain_id)
    refuse(`its deposit is on chain ${session.source_chain_id}, not the Solana chain ${terms.chain_id}`);
  const token = session.detected_token;
  if (token !== terms.usdc_mint && token !== NATIVE_MINT)
    refuse(`it detected ${token}, neither USDC nor SOL`);
  const amount = BigInt(session.detected_amount);
  if (amount <= 0n) refuse("its detected amount is not positive");
  const wanted = params.destination;
  if (
    wanted !== undefined &&
    (session.dest_chain_id !== wanted.chainId || !sameAddress(session.dest_address, wanted.address))
  )
    refuse(`it pays ${session.dest_address} on chain ${session.dest_chain_id}`);
  // On its own chain the delivery goes straight to the destination; elsewhere to the vault (fast fill).
  if (session.dest_chain_id === terms.chain_id && terms.sweep_to !== session.dest_address)
    refuse(`its sweep goes to ${terms.sweep_to}, not to the destination ${session.dest_address}`);
  const maxFee = params.maxFeeBps ?? DEFAULT_SOLANA_MAX_FEE_BPS;
  if (!Number.isInteger(terms.fee_bps) || terms.fee_bps < 0 || terms.fee_bps > maxFee)
    refuse(`its platform fee of ${terms.fee_bps} bps is above the ${maxFee} bps signed for`);
  const maxAppFee = params.maxAppFeeBps ?? 0;
  if (!Number.isInteger(session.app_fee_bps) || session.app_fee_bps < 0 || session.app_fee_bps > maxAppFee)
    refuse(`its app fee of ${session.app_fee_bps} bps is above the ${maxAppFee} bps signed for`);

  const fee = (amount * BigInt(terms.fee_bps)) / 10_000n;
  const appFee = (amount * BigInt(session.app_fee_bps)) / 10_000n;
  const legs: SweepLeg[] = [{ to: terms.sweep_to, amount: amount - fee - appFee }];
  if (fee > 0n) legs.push({ to: terms.fee_payer, amount: fee });
  if (appFee > 0n) {
    const recipient = session.app_fee_recipient_sol ?? refuse("it has an app fee but no Solana recipient");
    legs.push({ to: recipient, amount: appFee });
  }
  let tx: ReturnType<typeof buildSolanaSweep>;
  try {
    tx = buildSolanaSweep({
      burner: burnerAddress,
      feePayer: terms.fee_payer,
      token,
      legs,
      blockhash: params.blockhash,
      // Flow D: the stealth address's USDC account is opened first, at the fee payer's cost.
      openFirstLeg: terms.open_sweep_to === true,
    });
  } catch (cause) {
    throw new ClientError(
      "verification_failed",
      `the sweep of session ${session.id} cannot be built from its terms`,
      {
        cause,
      },
    );
  }
  tx.partialSign(burner);
  const transaction = tx
    .serialize({ requireAllSignatures: false, verifySignatures: false })
    .toString("base64");
  return { transaction, token, legs: legs.filter((l) => l.amount > 0n) };
}

/** Base58 is compared as spelled; a 0x address (an EVM destination) in any case. */
const sameAddress = (a: string | null, b: string): boolean =>
  a !== null && (a.startsWith("0x") ? a.toLowerCase() === b.toLowerCase() : a === b);
