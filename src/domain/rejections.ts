/**
 * Every way the session core can refuse a command. Each code has one HTTP status, so the gateway
 * answers a rejection without knowing why it happened. `retryable` says whether the same command
 * may succeed later unchanged.
 */
export const REJECTIONS = {
  session_exists: { status: 409, message: "a session with this id already exists", retryable: false },
  session_not_found: { status: 404, message: "session not found", retryable: false },
  session_expired: { status: 409, message: "the session has expired", retryable: false },
  transfer_unknown: { status: 404, message: "no such deposit on this session", retryable: false },
  expiry_not_due: { status: 409, message: "the session is not due to expire", retryable: true },
  wrong_status: { status: 409, message: "the session is not in a state that allows this", retryable: false },
} as const satisfies Record<string, { status: number; message: string; retryable: boolean }>;

export type RejectionCode = keyof typeof REJECTIONS;

export interface Rejection {
  code: RejectionCode;
  message: string;
}

export const reject = (code: RejectionCode, message: string = REJECTIONS[code].message): Rejection => ({
  code,
  message,
});
