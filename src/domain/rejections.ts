import type { Refusal } from "./decider.ts";

/**
 * Every way the session core can refuse a command: a stable code and its default message. The
 * domain knows nothing of HTTP: the gateway maps each code to a status (and says whether a client
 * may retry) in its one registry, src/gateway/errors.ts, which docs/API.md documents.
 */
export const REJECTION_MESSAGES = {
  session_exists: "a session with this id already exists",
  session_not_found: "session not found",
  session_expired: "the session has expired",
  transfer_unknown: "no such deposit on this session",
  expiry_not_due: "the session is not due to expire",
  wrong_status: "the session is not in a state that allows this",
  execution_unknown: "the session sent no executor command with this id",
  not_detected: "no deposit has been detected on this session yet",
  already_committed: "the session is already committed to another intent",
  session_closed: "the session is closed (swept, failed, expired or bounced)",
  intent_mismatch: "the intent does not match the session",
  intent_expired: "the intent's deadline has passed",
  no_standing_refund: "the session has no standing refund signature for this chain",
  already_registered: "a burner is already registered on this session",
  not_checkout: "only a checkout session takes a burner registration",
  not_solana_session: "only a Solana-origin session (POST /sessions/solana) takes a Solana burner or sweep",
  refund_address_mismatch:
    "the bounce setup names another refund address than the one the session was created with",
  solana_sweep_expected: "a Solana-origin session is settled by its Solana sweep, not by an EVM intent",
  no_destination: "the merchant has pinned no destination for the deposit's chain",
  app_fee_sink_missing:
    "the merchant's app fee has no Solana recipient: set app_fee_recipient_sol (PUT /v1/app_fee) before a Solana checkout",
  // A commit's and a pk-tagged creation's rules on what the gateway verified (src/domain/commit-rules.ts).
  burner_mismatch: "burner is not this session's burner",
  authorization_mismatch: "eip7702_auth is not the authorization this session was created with",
  destination_mismatch: "the intent's destination is not the one the merchant pinned for this chain",
  destination_not_pinned:
    "this merchant accepts P2P sessions only to the destination it pinned for the burner's chain",
  // Relayer-paid work only moves value (src/domain/relayer-work.ts).
  refund_to_burner: "the refund's recipient is the burner itself: it would move nothing",
  asset_not_deposited:
    "no deposit of this token on this chain is recorded on the session: there is nothing to refund",
  nothing_to_refund: "the burner holds none of this asset on this chain: there is nothing to refund",
  refund_exceeds_balance: "the refund asks for more than the burner holds of this asset",
  refund_below_dust: "the refund would move less than the gas it costs (the dust floor)",
  no_new_deposit:
    "no deposit of this asset arrived since its last refund-all: there is nothing new to refund",
  refund_in_flight: "a bounce or refund of this asset is in flight: wait for its outcome",
  refund_limit_reached: "the relayer has paid for as many Solana refunds of this session as it pays for",
  gas_budget_spent: "the relayer has spent this session's gas budget: it sends no more transactions for it",
  // One money policy for every family (src/domain/value.ts).
  asset_unpriced: "the service has no money facts for this chain: the deposit cannot be valued",
  asset_not_bridgeable:
    "this deposit cannot become USDC on its chain, so it settles only on its own chain: refund it, or pay in USDC",
  checkout_token_unsupported:
    "a checkout is priced in USDC and this deposit cannot be swapped into USDC on its chain: only a USDC deposit is settled",
  delivery_below_minimum:
    "the cross-chain delivery would carry less than the destination chain's minimum: the relayer's transaction would cost more than it delivers",
} as const;

export type RejectionCode = keyof typeof REJECTION_MESSAGES;

export type Rejection = Refusal<RejectionCode>;

export const reject = (code: RejectionCode, message: string = REJECTION_MESSAGES[code]): Rejection => ({
  code,
  message,
});
