import { ClientError } from "./errors.ts";

/**
 * A checkout session's credentials (interface.md, Authentication): the merchant's publishable key
 * (`pk_`, not secret) and the session's client secret (`cs_`, handed to the payer's page once).
 * Register, commit and quote send them as headers; the event stream as query parameters, because a
 * browser's EventSource cannot send headers. An anonymous session has none.
 */
export interface CheckoutCredentials {
  publishableKey: string;
  clientSecret: string;
}

/** A key of the wrong kind fails at once (`config_error`), not as a 401 at the first request. */
export function checkCheckout(checkout: CheckoutCredentials): CheckoutCredentials {
  const { publishableKey, clientSecret } = checkout;
  if (typeof publishableKey !== "string" || !publishableKey.startsWith("pk_"))
    throw new ClientError("config_error", "checkout.publishableKey is not a publishable key (pk_…)");
  if (typeof clientSecret !== "string" || !clientSecret.startsWith("cs_"))
    throw new ClientError("config_error", "checkout.clientSecret is not a client secret (cs_…)");
  return checkout;
}

/** The headers of a guarded checkout request; none for an anonymous session. */
export function checkoutHeaders(checkout: CheckoutCredentials | null | undefined): Record<string, string> {
  if (!checkout) return {};
  return { authorization: `Bearer ${checkout.publishableKey}`, "x-client-secret": checkout.clientSecret };
}

/** `path` with the stream's `pk` and `client_secret` query parameters; unchanged when anonymous. */
export function withCheckoutQuery(path: string, checkout: CheckoutCredentials | null | undefined): string {
  if (!checkout) return path;
  const query = new URLSearchParams({ pk: checkout.publishableKey, client_secret: checkout.clientSecret });
  return `${path}${path.includes("?") ? "&" : "?"}${query.toString()}`;
}
