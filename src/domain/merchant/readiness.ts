/**
 * Whether a merchant is set up to be paid (issue 28): what must exist before a payment link or a
 * checkout session is created, so nothing is made that a payer could start but never complete. A
 * precondition on the merchant's settings as the gateway reads them now, not a decider's rule: the
 * link entity carries no settings, and which chains a payment can use is the service's
 * configuration. The gateway refuses with 409 `merchant_not_ready` and this message.
 */
export interface PaymentSetup {
  /** The source chains the merchant pinned a destination for (PUT /v1/destinations). */
  pinnedChainIds: readonly number[];
  /** The configured chains this payment can be paid on. */
  payableChainIds: readonly number[];
  /** Whether the merchant has an active publishable key; undefined where none is needed. */
  publishableKey?: boolean;
}

/** What is missing, said to the merchant, or null when the payment can be made. */
export function setupMissing(setup: PaymentSetup): string | null {
  const missing: string[] = [];
  if (setup.pinnedChainIds.length === 0) missing.push("no destination is pinned (PUT /v1/destinations)");
  else if (!setup.pinnedChainIds.some((id) => setup.payableChainIds.includes(id)))
    missing.push(
      `no destination is pinned for a chain it can be paid on (${setup.payableChainIds.join(", ") || "none configured"}; PUT /v1/destinations)`,
    );
  if (setup.publishableKey === false)
    missing.push("no publishable key is active (POST /v1/keys/roll with type publishable)");
  return missing.length === 0 ? null : `the merchant cannot be paid yet: ${missing.join("; ")}`;
}
