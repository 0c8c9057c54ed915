import type { ApiClient } from "../api-client.ts";
import { ApiError } from "../errors.ts";
import type { Session } from "../types.ts";
import { isDetected, type WaitForDetectionParameters } from "./wait-for-detection.ts";
import { type WaitForStatusErrorType, waitForStatus } from "./wait-for-status.ts";

export type WaitForSolanaDetectionParameters = WaitForDetectionParameters;

/**
 * A Solana-origin session whose deposit is known: base58 token (the USDC mint, or the native mint
 * `So11111111111111111111111111111111111111112` for SOL), amount in base units or lamports, the
 * deposit's signature; what the sweep is built from (`signSolanaSweep`).
 */
export type DetectedSolanaSession = Session & {
  source_chain_id: number;
  burner_address: string;
  detected_token: string;
  detected_amount: string;
  detected_tx: string;
};
export type WaitForSolanaDetectionReturnType = DetectedSolanaSession;
/** As waitForDetection's. */
export type WaitForSolanaDetectionErrorType = WaitForStatusErrorType;

/**
 * waitForDetection for a Solana-origin session: over its event stream until the deposit is
 * detected (at `confirmed`: the service moves nothing before the deposit's slot is `finalized`, but
 * the sweep can be signed and committed at once), typed with the Solana spellings of its fields.
 *
 * @example
 * import { waitForSolanaDetection } from "deposit-settlement/client";
 * const detected = await waitForSolanaDetection(client, { id, timeout: 300_000 });
 * console.log(detected.detected_token, detected.detected_amount);
 */
export async function waitForSolanaDetection(
  client: ApiClient,
  params: WaitForSolanaDetectionParameters,
): Promise<WaitForSolanaDetectionReturnType> {
  const session = await waitForStatus(client, { ...params, status: "detected" });
  if (isDetected(session) && session.burner_address !== null) return session as DetectedSolanaSession;
  throw new ApiError(`session ${session.id} is ${session.status} but names no deposit`, {
    kind: "parse",
    status: 200,
    method: "GET",
    url: `${client.baseUrl}/sessions/${encodeURIComponent(params.id)}/events`,
  });
}
