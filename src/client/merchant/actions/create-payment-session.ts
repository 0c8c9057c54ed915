import type { ApiError, ClientError } from "../../errors.ts";
import { baseUnits } from "../amount.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { PaymentSessionCreated } from "../types.ts";

export interface CreatePaymentSessionParameters {
  /**
   * What the payer owes in USDC base units (6 decimals): `"10000000"` or `10_000_000n` is 10 USDC.
   * Digits only: anything else is refused before a request is made.
   */
  amount: string | bigint;
  /**
   * Sent as `Idempotency-Key` (1 to 255 printable ASCII characters, no spaces). For 24 hours the
   * same key with the same amount answers the first answer (the same session and client secret), so
   * the call is then retried by the client's rules. Without it every call creates a new session.
   */
  idempotencyKey?: string | undefined;
  /**
   * Flow D: the session pays a fresh stealth address derived from the merchant's stealth
   * meta-address (`setStealthMeta` first), not the destinations table; `getStealthAnnouncements`
   * reads what the recipient needs to find it. Sent only when true.
   */
  stealth?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

export type CreatePaymentSessionReturnType = PaymentSessionCreated;
/**
 * `ClientError` `config_error` for an amount with a non-digit (no request made); an `http` ApiError:
 * 400 for an amount the service refuses (zero, leading zeros, too long) or a malformed key, 409
 * `idempotency_key_reused` for a key used with another amount; with `stealth`, 409
 * `stealth_meta_missing` before any `setStealthMeta` and 403 on a service that offers no stealth. Without a key, a `network` or
 * `timeout` ApiError or a 5xx is thrown after one try: the session may have been created.
 */
export type CreatePaymentSessionErrorType = ApiError | ClientError<"config_error">;

/**
 * Creates a checkout session (`POST /v1/payment_sessions`) for the widget to complete: hand it the
 * answer's `id` and `client_secret` (shown this once) with the publishable key. The session takes
 * the merchant's app fee and pinned destinations as they are now.
 *
 * Without `idempotencyKey` every call creates a session (the interface's rule), so only a 429 is
 * retried: after a timeout, a network failure or a 5xx a session may exist that the answer never
 * brought, and a retry would make a second one. Pass a key (your order id) to have those failures
 * retried safely, by the client and by you.
 *
 * @example
 * const session = await createPaymentSession(client, { amount: 10_000_000n, idempotencyKey: order.id });
 * res.json({ id: session.id, clientSecret: session.client_secret });
 */
export async function createPaymentSession(
  client: MerchantClient,
  params: CreatePaymentSessionParameters,
): Promise<CreatePaymentSessionReturnType> {
  const amount = baseUnits(params.amount, "createPaymentSession");
  const key = params.idempotencyKey;
  return client.request<PaymentSessionCreated>({
    method: "POST",
    path: "/v1/payment_sessions",
    body: params.stealth === true ? { amount, stealth: true } : { amount },
    ...(key === undefined ? { idempotent: false } : { headers: { "idempotency-key": key } }),
    signal: params.signal,
  });
}
