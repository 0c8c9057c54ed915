import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { StealthAnnouncement } from "../types.ts";

export interface GetStealthAnnouncementsParameters {
  /** The id of a Flow D session (`createPaymentSession` with `stealth: true`). */
  id: string;
  signal?: AbortSignal | undefined;
}

/** One announcement per scheme the meta-address has keys for (`erc5564-1`, `solana-ed25519-1`). */
export type GetStealthAnnouncementsReturnType = StealthAnnouncement[];
/**
 * An `http` ApiError: 404 `session_not_found` for an unknown id or another merchant's session, 404
 * `stealth_not_found` for a session that is not Flow D; 400 for an id that is not a UUID; 403
 * `stealth_disabled` or `stealth_mainnet` on a service that offers no stealth.
 */
export type GetStealthAnnouncementsErrorType = ApiError;

/**
 * A Flow D session's announcements (`GET /sessions/:id/stealth`, read with the secret key): per
 * scheme the stealth address the session pays, the ephemeral public key and view tag the recipient
 * derives its spending key from, the chain, and `tx`, null until the announcement is on chain.
 *
 * @example
 * const [evm] = await getStealthAnnouncements(client, { id: session.id });
 * if (evm?.tx) console.log(`announced in ${evm.tx} on chain ${evm.chain_id}`);
 */
export async function getStealthAnnouncements(
  client: MerchantClient,
  params: GetStealthAnnouncementsParameters,
): Promise<GetStealthAnnouncementsReturnType> {
  const { announcements } = await client.request<{ announcements: StealthAnnouncement[] }>({
    method: "GET",
    path: `/sessions/${encodeURIComponent(params.id)}/stealth`,
    signal: params.signal,
  });
  return announcements;
}
