import type { ApiClient } from "../api-client.ts";
import type { CheckoutCredentials } from "../checkout.ts";
import type { StandingRefundWire } from "../types.ts";
import type { PayDetectThenSignErrorType, PayDetectThenSignReturnType } from "./pay-detect-then-sign.ts";
import { type DetectThenSignSteps, settleDetectThenSign } from "./pay-detect-then-sign.ts";
import { type RegisterBurnerReturnType, registerBurner } from "./register-burner.ts";
import { DEFAULT_CHECKOUT_MAX_APP_FEE_BPS } from "./sign-intent.ts";

export interface PayCheckoutParameters extends Omit<DetectThenSignSteps, "destination"> {
  /** The checkout session the merchant (or a payment link) created. */
  id: string;
  /** Its `pk_` and `cs_`; default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  /** Signed up front (`signStandingRefund`): registered with the burner. */
  standingRefund?: StandingRefundWire | undefined;
  /**
   * Called once the burner is registered and the session's event stream is being followed: show
   * `burner.address` (and its QR code) to the payer. A rejection ends the flow with that error.
   */
  onRegistered?: ((registered: RegisterBurnerReturnType) => void | Promise<void>) | undefined;
}

export type PayCheckoutReturnType = Omit<PayDetectThenSignReturnType, "created"> & {
  registered: RegisterBurnerReturnType;
};
/** As payDetectThenSign's, with registerBurner's errors (409: another burner holds the slot). */
export type PayCheckoutErrorType = PayDetectThenSignErrorType;

/**
 * The detect-then-sign flow for a checkout session, as a payer's page runs it: register the burner
 * (`POST /sessions/:id/register`), wait for the deposit over SSE, sign the Intent for what was
 * detected (to the destination the merchant pinned, which the session names once the deposit is
 * seen), commit it and wait until swept. Every guarded call carries the pk_ and cs_.
 *
 * @example
 * import { createApiClient, newBurner, payCheckout } from "deposit-settlement/client";
 * const client = createApiClient({
 *   baseUrl: "http://127.0.0.1:8080",
 *   checkout: { publishableKey: "pk_test_…", clientSecret: "cs_test_…" },
 * });
 * const burner = await newBurner({ chainId: 31337, delegate: "0x…" });
 * const { settled } = await payCheckout(client, {
 *   id: "<session id>",
 *   burner,
 *   usdc: { 31337: "0x…" },
 *   onRegistered: () => console.log(`pay to ${burner.address}`),
 * });
 * console.log(settled.status); // "swept"
 */
export async function payCheckout(
  client: ApiClient,
  params: PayCheckoutParameters,
): Promise<PayCheckoutReturnType> {
  const { id, burner, checkout, signal } = params;
  const registered = await registerBurner(client, {
    id,
    burner,
    standingRefund: params.standingRefund,
    checkout,
    signal,
  });
  const steps = { ...params, maxAppFeeBps: params.maxAppFeeBps ?? DEFAULT_CHECKOUT_MAX_APP_FEE_BPS };
  const rest = await settleDetectThenSign(client, id, steps, () => params.onRegistered?.(registered));
  return { registered, ...rest };
}
