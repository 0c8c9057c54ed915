import type { ApiClient } from "../api-client.ts";
import type { Burner } from "../burner.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import { ApiError, ClientError } from "../errors.ts";
import type { CreateSessionBody, SessionStatus } from "../types.ts";
import { getSession } from "./get-session.ts";

/**
 * The body of `POST /sessions/:id/register`: the burner fields of `POST /sessions` (same shapes, same
 * checks), without a destination: a checkout session's destination is the merchant's pinned one.
 */
export type RegisterBurnerBody = Pick<
  CreateSessionBody,
  "burner_address" | "eip7702_auth" | "standing_refund"
>;

export interface RegisterBurnerParameters {
  /** The checkout session's id (`POST /links/:slug/sessions` or the merchant's `POST /v1/payment_sessions`). */
  id: string;
  /** A burner from `newBurner` for the source chain: its address and signed EIP-7702 authorization. */
  burner: Pick<Burner, "address" | "eip7702Auth">;
  /** Signed up front (`signStandingRefund`): stored with the burner in the same decision. */
  standingRefund?: RegisterBurnerBody["standing_refund"] | undefined;
  /** The session's `pk_` and `cs_`; default the client's `checkout`. Required one way or the other. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

export interface RegisterBurnerReturnType {
  id: string;
  status: SessionStatus;
}
/**
 * `config_error` without checkout credentials; ApiError: 401 (a missing, revoked or wrong-type key),
 * 403 (a client secret that is not this session's), 409 (the burner slot is filled, or the session is
 * no longer `pending`), 400 (an authorization or standing refund that does not verify).
 */
export type RegisterBurnerErrorType = ApiError | ClientError<"config_error">;

/**
 * Attaches the payer's burner to a merchant-created checkout session (`POST /sessions/:id/register`
 * with `Authorization: Bearer pk_…` and `X-Client-Secret: cs_…`). Retried by the client's rules. The
 * slot is filled once and a second register answers 409; a 409 is read back (`GET /sessions/:id`),
 * and when the slot holds this very burner (a retry whose first try landed but whose answer was
 * lost) the register succeeded: only another burner's register is an error.
 *
 * @example
 * import { createApiClient, newBurner, registerBurner } from "deposit-settlement/client";
 * const client = createApiClient({
 *   baseUrl: "http://127.0.0.1:8080",
 *   checkout: { publishableKey: "pk_test_…", clientSecret: "cs_test_…" },
 * });
 * const burner = await newBurner({ chainId: 31337, delegate: "0x…" });
 * await registerBurner(client, { id: "<session id>", burner });
 * console.log(`pay to ${burner.address}`);
 */
export async function registerBurner(
  client: ApiClient,
  params: RegisterBurnerParameters,
): Promise<RegisterBurnerReturnType> {
  const checkout = params.checkout ?? client.checkout;
  if (!checkout)
    throw new ClientError(
      "config_error",
      "registerBurner: a checkout session needs its pk_ and cs_ (`checkout`)",
    );
  const body: RegisterBurnerBody = {
    burner_address: params.burner.address,
    eip7702_auth: params.burner.eip7702Auth,
    ...(params.standingRefund === undefined ? {} : { standing_refund: params.standingRefund }),
  };
  try {
    return await client.request<RegisterBurnerReturnType>({
      method: "POST",
      path: `/sessions/${encodeURIComponent(params.id)}/register`,
      body,
      headers: checkoutHeaders(checkout),
      signal: params.signal,
    });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 409)) throw err;
    const session = await getSession(client, { id: params.id, signal: params.signal });
    const ours = session.burner_address?.toLowerCase() === params.burner.address.toLowerCase();
    if (ours) return { id: session.id, status: session.status };
    throw err;
  }
}
