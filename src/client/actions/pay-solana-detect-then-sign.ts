import type { ApiClient } from "../api-client.ts";
import type { ApiError, ClientError, SessionEndedError } from "../errors.ts";
import { type CreateSolanaSessionReturnType, createSolanaSession } from "./create-solana-session.ts";
import {
  type PaySolanaSessionParameters,
  type PaySolanaSessionReturnType,
  paySolanaSession,
} from "./pay-solana-session.ts";

export interface PaySolanaDetectThenSignParameters
  extends Omit<PaySolanaSessionParameters, "id" | "terms" | "destination" | "refundTo" | "onRegistered"> {
  /** A base58 wallet on the Solana chain, or a 0x address on a configured EVM chain (paid by the fast fill). */
  destination: { address: string; chainId: number };
  /**
   * The payer's wallet (base58): the session's `refund_address`, and the one address the burner's
   * bounce setup (signed once the deposit is detected) lets the service return its USDC to if the
   * session then expires or fails. Without it there is no automatic bounce, and only the burner's key
   * can move what it holds.
   */
  refundTo?: string | undefined;
  /**
   * Called once the session is open, the burner registered and the event stream followed: show
   * `burner.address` to the payer, or send the deposit. A rejection ends the flow with that error.
   */
  onCreated?: ((created: CreateSolanaSessionReturnType) => void | Promise<void>) | undefined;
  idempotencyKey?: string | undefined;
}

export interface PaySolanaDetectThenSignReturnType extends PaySolanaSessionReturnType {
  created: CreateSolanaSessionReturnType;
}
/**
 * Whatever the step that failed raises: ApiError (create, register, blockhash, a wait that timed
 * out), ClientError (`verification_failed`, `commit_failed`, `wallet_error`), SessionEndedError (the
 * session expired before a deposit, or failed or bounced after the commit).
 */
export type PaySolanaDetectThenSignErrorType = ApiError | ClientError | SessionEndedError;

/**
 * The Solana detect-then-sign flow in one call: open a Solana-origin session, register the burner,
 * wait for the deposit over SSE (then add the burner's bounce setup when `refundTo` is given), sign the sweep of
 * exactly what was detected with a fresh blockhash, commit it, and wait until the session is swept.
 * The service co-signs the sweep as fee payer and relays it once the deposit is `finalized`.
 *
 * @example
 * import { createApiClient, makeSolanaBurner, paySolanaDetectThenSign } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const burner = makeSolanaBurner();
 * const { settled } = await paySolanaDetectThenSign(client, {
 *   burner,
 *   destination: { address: "<base58 wallet>", chainId: 792703810 },
 *   refundTo: "<the payer's base58 wallet>",
 *   onCreated: () => console.log(`pay to ${burner.address}`),
 * });
 * console.log(settled.outcome, settled.dest_tx);
 */
export async function paySolanaDetectThenSign(
  client: ApiClient,
  params: PaySolanaDetectThenSignParameters,
): Promise<PaySolanaDetectThenSignReturnType> {
  const created = await createSolanaSession(client, {
    destination: params.destination,
    refundAddress: params.refundTo,
    idempotencyKey: params.idempotencyKey,
    signal: params.signal,
  });
  const paid = await paySolanaSession(client, {
    ...params,
    id: created.id,
    terms: created.sweep,
    onRegistered: () => params.onCreated?.(created),
  });
  return { created, ...paid };
}
