// What a signature check can answer, apart from the checks themselves (./signatures.ts): the
// adapter's Verdict and the gateway's error registry name these codes without the checks.

/** Every way a check can fail; the gateway answers each with 400 (docs/API.md lists them). */
export const AUTHORIZATION_PROBLEMS = {
  authorization_chain_unsupported: "the authorization's chain has no configured delegate",
  authorization_wrong_delegate: "the authorization does not delegate to the service's delegate contract",
  authorization_invalid_signature: "the authorization's signature is invalid",
  authorization_not_burner: "the authorization was not signed by the burner",
  standing_refund_expired: "the standing refund's deadline has passed",
  standing_refund_invalid_signature: "a standing refund signature does not recover to the burner",
  intent_invalid_signature: "an intent signature does not recover to the burner",
  refund_invalid_signature: "the refund's signature does not recover to the burner",
} as const;

export type SignatureProblemCode = keyof typeof AUTHORIZATION_PROBLEMS;
