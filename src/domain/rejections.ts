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
  no_destination: "the merchant has pinned no destination for the deposit's chain",
} as const;

export type RejectionCode = keyof typeof REJECTION_MESSAGES;

export type Rejection = Refusal<RejectionCode>;

export const reject = (code: RejectionCode, message: string = REJECTION_MESSAGES[code]): Rejection => ({
  code,
  message,
});
