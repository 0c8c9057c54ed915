import { BaseError } from "../support/errors.ts";
import type { Session } from "./types.ts";

/**
 * The interface's client-side error codes (interface.md, "Errors"). Every error the client library
 * raises carries one of them as its `code`, so a payer's app can switch over a closed list; the
 * rest of what went wrong is on the error's own fields.
 */
export const CLIENT_ERROR_CODES = [
  "wallet_rejected",
  "wallet_error",
  "network_error",
  "api_error",
  "verification_failed",
  "commit_failed",
  "session_expired",
  "config_error",
  "unknown",
] as const;
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/**
 * The interface's client error kinds: `http` (the service answered with a status that is not 2xx),
 * `network` (no answer: refused, reset, DNS), `timeout` (no answer in time), `parse` (a 2xx whose
 * body is not what the route serves).
 */
export type ApiErrorKind = "http" | "network" | "timeout" | "parse";

export interface ApiErrorFields {
  kind: ApiErrorKind;
  /** The HTTP status; 0 when there was no HTTP answer (network, timeout). */
  status: number;
  method: string;
  url: string;
  /** The `error` field of the service's JSON error body, when it sent one. */
  serverMessage?: string | null | undefined;
  /** The wait the service asked for (429 and 503 `Retry-After`), in ms. */
  retryAfterMs?: number | null | undefined;
  cause?: unknown;
}

/**
 * A request to the service that failed. Retryable exactly as the interface's retry rules say: 429,
 * 5xx, network and timeout failures; never another 4xx, and never a body that does not parse (the
 * same request would get the same body). The service's bodies carry a message, not a code
 * (docs/API.md, "Errors"), so `serverMessage` is what it said and `status` what it meant.
 */
export class ApiError extends BaseError<"api_error" | "network_error"> {
  override name = "ApiError";
  readonly code: "api_error" | "network_error";
  readonly retryable: boolean;
  readonly kind: ApiErrorKind;
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly serverMessage: string | null;
  readonly retryAfterMs: number | null;

  constructor(shortMessage: string, fields: ApiErrorFields) {
    super(shortMessage, { details: [`${fields.method} ${fields.url}`], cause: fields.cause });
    this.kind = fields.kind;
    this.status = fields.status;
    this.method = fields.method;
    this.url = fields.url;
    this.serverMessage = fields.serverMessage ?? null;
    this.retryAfterMs = fields.retryAfterMs ?? null;
    this.code = fields.kind === "network" || fields.kind === "timeout" ? "network_error" : "api_error";
    this.retryable =
      fields.kind === "network" ||
      fields.kind === "timeout" ||
      (fields.kind === "http" && (fields.status === 429 || fields.status >= 500));
  }
}

/**
 * A session ended in a status from which the awaited one cannot follow (waitForStatus). `expired`
 * has the interface's own code; the list has none for a session that failed or bounced, so those
 * are `unknown`, with the status and the session's `error_message` in the message.
 */
export class SessionEndedError extends BaseError<"session_expired" | "unknown"> {
  override name = "SessionEndedError";
  readonly code: "session_expired" | "unknown";
  readonly retryable = false;
  readonly session: Session;

  constructor(session: Session, awaited: string) {
    const why = session.error_message ? ` (${session.error_message})` : "";
    super(`session ${session.id} is ${session.status}${why}; it will not become ${awaited}`);
    this.session = session;
    this.code = session.status === "expired" ? "session_expired" : "unknown";
  }
}

/**
 * An error the client library raises itself (not a failed request, which is an ApiError): a wallet
 * that refused or failed to sign, a session that does not say what the payer asked for, a commit
 * that did not go through, a configuration that cannot work. `retryable` says whether the same call
 * may succeed later (a `commit_failed` whose cause was a 5xx, a network failure or a timeout is).
 */
export class ClientError<Code extends ClientErrorCode = ClientErrorCode> extends BaseError<Code> {
  override name = "ClientError";
  readonly code: Code;
  readonly retryable: boolean;

  constructor(code: Code, shortMessage: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(shortMessage, options.cause === undefined ? {} : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/**
 * The interface's client error code of anything the library (or a wallet under it) threw: the
 * library's own errors carry theirs (an ApiError: `network_error` for kinds network and timeout,
 * `api_error` for http and parse); a wallet's refusal (EIP-1193 code 4001, viem's
 * UserRejectedRequestError, anywhere in the cause chain) is `wallet_rejected`; the rest `unknown`.
 */
export function clientErrorCode(err: unknown): ClientErrorCode {
  if (err instanceof BaseError && (CLIENT_ERROR_CODES as readonly string[]).includes(err.code))
    return err.code as ClientErrorCode;
  if (isWalletRejection(err)) return "wallet_rejected";
  return "unknown";
}

/** The user said no in their wallet: EIP-1193's 4001 on the error or on any of its causes. */
export function isWalletRejection(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === "object" && e !== null && depth < 10; depth++) {
    const { code, name } = e as { code?: unknown; name?: unknown };
    if (code === 4001 || name === "UserRejectedRequestError") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs a wallet's signing call: a refusal becomes `wallet_rejected`, any other failure
 * `wallet_error` (a locked wallet, a method it lacks, a hardware device unplugged). Neither is
 * retried by the library: the payer decides.
 */
export async function walletCall<T>(what: string, sign: () => Promise<T>): Promise<T> {
  try {
    return await sign();
  } catch (err) {
    if (isWalletRejection(err))
      throw new ClientError("wallet_rejected", `the wallet refused to sign ${what}`, { cause: err });
    throw new ClientError("wallet_error", `the wallet could not sign ${what}`, { cause: err });
  }
}
