import type { ApiClient } from "../api-client.ts";
import { type ApiError, ClientError, type SessionEndedError } from "../errors.ts";
import { followThenOpen } from "../follow-then-open.ts";
import type { CommitResponse, Session, SolanaBurnerResponse, SolanaSweepTerms } from "../types.ts";
import { attachSolanaBounceSetup } from "./attach-solana-bounce-setup.ts";
import { commitSolanaSweep } from "./commit-solana-sweep.ts";
import { getSession } from "./get-session.ts";
import { getSolanaBlockhash } from "./get-solana-blockhash.ts";
import type { MakeSolanaBurnerReturnType } from "./make-solana-burner.ts";
import { registerSolanaBurner } from "./register-solana-burner.ts";
import { type SignSolanaSweepReturnType, signSolanaSweep } from "./sign-solana-sweep.ts";
import { isDetected } from "./wait-for-detection.ts";
import { type DetectedSolanaSession, waitForSolanaDetection } from "./wait-for-solana-detection.ts";
import { waitForStatus } from "./wait-for-status.ts";

const DEFAULT_SETTLEMENT_TIMEOUT_MS = 600_000;
/** Signing rounds at most: the first sweep, and a new one after a refusal (the deposit grew, the blockhash expired). */
const MAX_SIGN_ROUNDS = 3;

export interface PaySolanaSessionParameters {
  /** The open Solana-origin session: `POST /sessions/solana`, a merchant's Solana checkout, or a payment link's. */
  id: string;
  /** The session's `sweep` terms, as its creation answered them. */
  terms: SolanaSweepTerms;
  /** From `makeSolanaBurner`. Keep its key until the session ends: SOL only it can return (`refundSolanaSol`). */
  burner: MakeSolanaBurnerReturnType;
  /** The destination the payer asked for; when given, a sweep that pays elsewhere is never signed. */
  destination?: { address: string; chainId: number } | undefined;
  /**
   * The payer's wallet (base58): the one address the burner's bounce setup (signed once the deposit
   * is detected) lets the service return its USDC to if the session then expires or fails. Without it
   * there is no automatic bounce, and only the burner's key can move what it holds.
   */
  refundTo?: string | undefined;
  /** The highest platform fee signed, bps (`signSolanaSweep`). Default 100. */
  maxFeeBps?: number | undefined;
  /** The highest app fee signed, bps. Default 0 (an anonymous session carries none). */
  maxAppFeeBps?: number | undefined;
  /**
   * Called once the burner is registered and the event stream followed: show `burner.address` to
   * the payer, or send the deposit. A rejection ends the flow with that error.
   */
  onRegistered?: ((registered: SolanaBurnerResponse) => void | Promise<void>) | undefined;
  /** Every state the event stream sends, while waiting for detection and for settlement. */
  onSession?: ((session: Session) => void) | undefined;
  /** How long to wait for a deposit, ms. Default 600000. */
  detectionTimeout?: number | undefined;
  /** How long to wait from commit to `swept`, ms. Default 600000. */
  settlementTimeout?: number | undefined;
  /** How long each commit's retryable failures are retried, ms (commitSolanaSweep's `retryFor`). */
  commitRetryFor?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface PaySolanaSessionReturnType {
  registered: SolanaBurnerResponse;
  detected: DetectedSolanaSession;
  signed: SignSolanaSweepReturnType;
  committed: CommitResponse;
  /** The session once `swept`: `sweep_tx`, `dest_tx`, `fee_amount` and the amounts are set. */
  settled: Session;
}
/** As paySolanaDetectThenSign's, less the creation's. */
export type PaySolanaSessionErrorType = ApiError | ClientError | SessionEndedError;

/**
 * Pays an open Solana-origin session detect-then-sign: register the burner, wait for the deposit
 * over SSE (then add the burner's bounce setup when `refundTo` is given), sign the sweep of exactly
 * what was detected with a fresh blockhash, commit it, and wait until the session is swept. Run again
 * with the same burner (a payer's page reloaded), it carries on where the session is: the same
 * registration is answered as the first, and a setup the service relayed before is the one it keeps.
 *
 * @example
 * import { makeSolanaBurner, paySolanaSession } from "deposit-settlement/client";
 * const burner = makeSolanaBurner();
 * const { settled } = await paySolanaSession(client, {
 *   id, terms: created.sweep, burner, refundTo: "<the payer's base58 wallet>",
 *   onRegistered: () => console.log(`pay to ${burner.address}`),
 * });
 */
export async function paySolanaSession(
  client: ApiClient,
  params: PaySolanaSessionParameters,
): Promise<PaySolanaSessionReturnType> {
  const { id, terms, burner, signal, onSession } = params;
  const registered = await registerSolanaBurner(client, { id, burner: burner.keypair, signal });
  const first = await followThenOpen(
    (following) =>
      waitForSolanaDetection(client, { id, timeout: params.detectionTimeout, onSession, signal: following }),
    () => params.onRegistered?.(registered),
    signal,
  );
  // The bounce setup is signed now, on a fresh blockhash: the service relays it only once a deposit
  // is recorded (it pays nothing for a burner never paid), and a setup signed at registration would
  // have expired (~60 s) for any payer slower than that. A setup attached earlier (a reloaded page,
  // a page that attached it as the payer's transfer confirmed or kept one fresh while it waited) was
  // relayed when the deposit was recorded, and this one is answered 409 and skipped.
  if (params.refundTo !== undefined)
    await attachSolanaBounceSetup(client, { id, terms, burner, refundTo: params.refundTo, signal });
  const { detected, signed, committed } = await signAndCommit(client, first, params);
  const settled = await waitForStatus(client, {
    id,
    status: "swept",
    timeout: params.settlementTimeout ?? DEFAULT_SETTLEMENT_TIMEOUT_MS,
    onSession,
    signal,
  });
  return { registered, detected, signed, committed, settled };
}

/**
 * Sign the sweep of the detected deposit with a fresh blockhash and commit it. A refusal (the deposit
 * grew since it was read, the blockhash expired before the commit) is signed again for the session as
 * it is now while it still waits for its sweep, up to MAX_SIGN_ROUNDS sweeps in all.
 */
async function signAndCommit(
  client: ApiClient,
  first: DetectedSolanaSession,
  params: PaySolanaSessionParameters,
) {
  const { id, terms, signal } = params;
  let detected = first;
  for (let round = 1; ; round++) {
    const { blockhash } = await getSolanaBlockhash(client, { chainId: terms.chain_id, signal });
    const signed = signSolanaSweep({
      burner: params.burner.keypair,
      session: detected,
      terms,
      blockhash,
      destination: params.destination,
      maxFeeBps: params.maxFeeBps,
      maxAppFeeBps: params.maxAppFeeBps,
    });
    try {
      const committed = await commitSolanaSweep(client, {
        id,
        transaction: signed.transaction,
        retryFor: params.commitRetryFor,
        signal,
      });
      return { detected, signed, committed };
    } catch (err) {
      const refused = err instanceof ClientError && err.code === "commit_failed" && !err.retryable;
      const now = refused && round < MAX_SIGN_ROUNDS ? await getSession(client, { id, signal }) : null;
      if (now === null || now.status !== "detected" || !isDetected(now)) throw err;
      detected = now as DetectedSolanaSession;
    }
  }
}
