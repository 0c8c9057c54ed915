import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AUTHORIZATION_PROBLEMS, type SignatureProblemCode } from "../chains/signature-problems.ts";
import { MERCHANT_REJECTION_MESSAGES } from "../domain/merchant/types.ts";
import { REJECTION_MESSAGES, type RejectionCode } from "../domain/rejections.ts";
import { SUBSCRIPTION_REJECTION_MESSAGES } from "../domain/subscription/types.ts";
import { isKafkaUnavailable } from "../kafka/client.ts";
import { ProviderUnavailableError } from "../providers/types.ts";
import type { GatewayReply } from "../records/gateway-replies.ts";
import { isCassandraUnavailable } from "../store/cassandra.ts";
import { BaseError } from "../support/errors.ts";
import { ChainUnavailableError, ProjectionBehindError, ReplyTimeoutError } from "./ports.ts";

/**
 * Every error the gateway answers with: one stable code, one HTTP status, a default message and
 * whether the same request may succeed later. This is the only place a code gets a status: the
 * domain's rejections and the signature checks carry codes and messages only. The body is always
 * `{ "error": message }`; the code appears in the logs and in docs/API.md (a unit test keeps the
 * two in step).
 */
export interface ErrorSpec {
  status: number;
  message: string;
  retryable: boolean;
}

/** The session core's refusals. `expiry_not_due` is retryable: the same command succeeds once due. */
const REJECTION_STATUSES = {
  session_exists: { status: 409, retryable: false },
  session_not_found: { status: 404, retryable: false },
  session_expired: { status: 409, retryable: false },
  transfer_unknown: { status: 404, retryable: false },
  expiry_not_due: { status: 409, retryable: true },
  wrong_status: { status: 409, retryable: false },
  execution_unknown: { status: 409, retryable: false },
  not_detected: { status: 409, retryable: true },
  already_committed: { status: 409, retryable: false },
  session_closed: { status: 409, retryable: false },
  intent_mismatch: { status: 400, retryable: false },
  intent_expired: { status: 400, retryable: false },
  no_standing_refund: { status: 409, retryable: false },
  already_registered: { status: 409, retryable: false },
  not_checkout: { status: 409, retryable: false },
  not_solana_session: { status: 409, retryable: false },
  refund_address_mismatch: { status: 409, retryable: false },
  solana_sweep_expected: { status: 409, retryable: false },
  no_destination: { status: 400, retryable: false },
  app_fee_sink_missing: { status: 409, retryable: false },
  burner_mismatch: { status: 400, retryable: false },
  authorization_mismatch: { status: 400, retryable: false },
  destination_mismatch: { status: 409, retryable: false },
  destination_not_pinned: { status: 403, retryable: false },
  refund_to_burner: { status: 400, retryable: false },
  asset_not_deposited: { status: 409, retryable: false },
  nothing_to_refund: { status: 409, retryable: false },
  refund_in_flight: { status: 409, retryable: true },
  refund_limit_reached: { status: 409, retryable: false },
  refund_exceeds_balance: { status: 409, retryable: false },
  refund_below_dust: { status: 409, retryable: false },
  no_new_deposit: { status: 409, retryable: false },
  gas_budget_spent: { status: 409, retryable: false },
  asset_unpriced: { status: 409, retryable: false },
  asset_not_bridgeable: { status: 409, retryable: false },
  checkout_token_unsupported: { status: 409, retryable: false },
  delivery_below_minimum: { status: 409, retryable: false },
} as const satisfies Record<RejectionCode, Omit<ErrorSpec, "message">>;

const GATEWAY_ERRORS = {
  invalid_request: { status: 400, message: "invalid request", retryable: false },
  malformed_http: { status: 400, message: "malformed HTTP request", retryable: false },
  invalid_json: { status: 400, message: "the body is not valid JSON", retryable: false },
  forbidden_key: {
    status: 400,
    message: "the body uses a forbidden key (__proto__, constructor or prototype)",
    retryable: false,
  },
  invalid_bounce_setup: {
    status: 400,
    message: "bounce_setup is not the setup this session's burner must sign",
    retryable: false,
  },
  intent_signature_missing: {
    status: 400,
    message: "intent_sigs holds no signature for the session's source chain",
    retryable: false,
  },
  chain_unsupported: { status: 400, message: "chain_id is not a configured chain", retryable: false },
  sweep_invalid: {
    status: 400,
    message: "the transaction is not the sweep this session owes",
    retryable: false,
  },
  solana_refund_invalid: {
    status: 400,
    message: "the transaction is not the transfer of the burner's whole balance to `to` and nothing else",
    retryable: false,
  },
  // POST /stealth/withdraw/solana[/prepare] (docs/STEALTH.md, "Withdrawal on Solana"): nothing is sent.
  stealth_solana_nothing_to_withdraw: {
    status: 409,
    message: "the stealth address holds no USDC: nothing to withdraw",
    retryable: false,
  },
  stealth_address_unknown: {
    status: 404,
    message:
      "the stealth address is not one this service derived for a paid (swept) Flow D session: it relays withdrawals only for those",
    retryable: false,
  },
  stealth_solana_withdraw_invalid: {
    status: 400,
    message:
      "the transaction is not the prepared withdrawal (the whole balance to the destination, nothing else) signed by the stealth address, or its blockhash expired",
    retryable: false,
  },
  stealth_solana_withdraw_fails: {
    status: 409,
    message: "the withdrawal fails on chain (its simulation), so the relayer does not send it",
    retryable: false,
  },
  burner_signature_invalid: {
    status: 400,
    message: "the signature is not the burner's ed25519 signature of its registration message",
    retryable: false,
  },
  burner_signature_missing: {
    status: 400,
    message: "burner_address needs burner_signature: the burner's proof that the caller holds its key",
    retryable: false,
  },
  // src/chains/service-addresses.ts: a session watching one would publish the service's inflows.
  burner_is_service_address: {
    status: 400,
    message: "the burner is one of the service's own addresses (a relayer, the vault or a fee sink)",
    retryable: false,
  },
  wallet_unsupported: {
    status: 400,
    message: "no provider for this kind of wallet is configured here",
    retryable: false,
  },
  refund_expired: { status: 400, message: "the refund's deadline has passed", retryable: false },
  delivery_not_found: { status: 404, message: "no such webhook delivery", retryable: false },
  event_not_found: { status: 404, message: "no such event", retryable: false },
  starting_after_unknown: {
    status: 400,
    message: "starting_after names no event of this merchant in the last 30 days",
    retryable: false,
  },
  webhook_endpoint_not_found: { status: 404, message: "no webhook endpoint is set", retryable: false },
  // The message says why (scheme, resolution, or which address in which range).
  webhook_url_refused: { status: 400, message: "the webhook URL is refused", retryable: false },
  delivery_not_failed: {
    status: 409,
    message: "only a delivery that ended failed can be redelivered",
    retryable: false,
  },
  refund_salt_used: {
    status: 409,
    message: "another refund of this session was signed with this salt; sign the refund with a new salt",
    retryable: false,
  },
  quote_not_used: {
    status: 409,
    message: "the deposit is USDC: nothing is swapped, so no quote is used (min_out may be up to max_in)",
    retryable: false,
  },
  no_swap_route: {
    status: 409,
    message: "the source chain's router has no pool from the deposited token to USDC",
    retryable: false,
  },
  stream_auth_required: {
    status: 401,
    message: "this session's event stream needs the client_secret and pk query parameters",
    retryable: false,
  },
  // Merchant mode (src/gateway/auth.ts, docs/MERCHANTS.md). A 401 carries WWW-Authenticate: Bearer.
  unauthorized: { status: 401, message: "missing, malformed, revoked or wrong-type key", retryable: false },
  forbidden: { status: 403, message: "the key does not own this resource", retryable: false },
  merchant_not_found: {
    status: 404,
    message: MERCHANT_REJECTION_MESSAGES.merchant_not_found,
    retryable: false,
  },
  key_not_found: { status: 404, message: MERCHANT_REJECTION_MESSAGES.key_not_found, retryable: false },
  merchant_exists: { status: 409, message: MERCHANT_REJECTION_MESSAGES.merchant_exists, retryable: false },
  idempotency_key_reused: {
    status: 409,
    message: "this Idempotency-Key was used with another request body",
    retryable: false,
  },
  // Subscriptions (docs/SUBSCRIPTIONS.md): the actor's refusals and the gateway's checks of the mandate.
  subscription_not_found: {
    status: 404,
    message: SUBSCRIPTION_REJECTION_MESSAGES.subscription_not_found,
    retryable: false,
  },
  subscription_exists: {
    status: 409,
    message: SUBSCRIPTION_REJECTION_MESSAGES.subscription_exists,
    retryable: false,
  },
  mandate_invalid: {
    status: 400,
    message: "the mandate breaks a rule the contract checks at every charge",
    retryable: false,
  },
  mandate_signature_invalid: {
    status: 400,
    message: "the signature does not recover to the mandate's payer",
    retryable: false,
  },
  cancel_signature_invalid: {
    status: 400,
    message: "the signature is not the payer's Cancel of this subscription",
    retryable: false,
  },
  route_not_found: { status: 404, message: "route not found", retryable: false },
  // Stealth settlement (docs/STEALTH.md): the gate (src/stealth/gating.ts) and Flow D.
  stealth_disabled: {
    status: 403,
    message: "stealth settlement is experimental and turned off on this service",
    retryable: false,
  },
  stealth_mainnet: {
    status: 403,
    message: "stealth settlement is refused on mainnet chains",
    retryable: false,
  },
  stealth_meta_not_found: {
    status: 404,
    message: "the merchant has registered no stealth meta-address",
    retryable: false,
  },
  // A payment link or checkout session the merchant is not set up to be paid through (issue 28).
  merchant_not_ready: {
    status: 409,
    message: "this merchant cannot take payments right now",
    retryable: false,
  },
  stealth_meta_missing: {
    status: 409,
    message: "a stealth session needs the merchant's stealth meta-address (PUT /v1/stealth-meta) first",
    retryable: false,
  },
  stealth_not_found: {
    status: 404,
    message: "this session is not a stealth (Flow D) session",
    retryable: false,
  },
  // POST /stealth/withdraw (docs/STEALTH.md, "Withdrawal on EVM"): refused before the relayer pays anything.
  stealth_withdraw_invalid: {
    status: 400,
    message:
      "the withdrawal cannot be relayed as asked (token, destination, fee, deadline or validity window)",
    retryable: false,
  },
  stealth_relayer_mismatch: {
    status: 400,
    message: "the Withdraw names another relayer than this service's (the message says which to sign)",
    retryable: false,
  },
  stealth_signature_invalid: {
    status: 400,
    message:
      "a signature is not the stealth address's: the authorization or the Withdraw (its destination and fee) differ from what it signed",
    retryable: false,
  },
  stealth_fee_too_high: {
    status: 400,
    message:
      "the fee is above what this service lets a withdrawal pay the relayer (STEALTH_WITHDRAW_MAX_FEE)",
    retryable: false,
  },
  stealth_fee_too_low: {
    status: 400,
    message: "the fee does not cover the gas the withdrawal costs now",
    retryable: false,
  },
  stealth_balance_insufficient: {
    status: 409,
    message: "the stealth address holds less than the authorization's value",
    retryable: false,
  },
  stealth_withdraw_replayed: {
    status: 409,
    message: "this authorization was used already: a withdrawal is relayed once",
    retryable: false,
  },
  stealth_withdraw_reverts: {
    status: 409,
    message: "the withdrawal would revert on chain, so the relayer does not send it",
    retryable: false,
  },
  // Payment links (docs/LINKS.md). link_exists and link_not_found are the link actor's refusals too.
  link_not_found: { status: 404, message: "no such payment link", retryable: false },
  link_exists: { status: 409, message: "conflict", retryable: false },
  link_inactive: { status: 410, message: "this payment link has been deactivated", retryable: false },
  link_expired: { status: 410, message: "this payment link has expired", retryable: false },
  // The operator's tools (docs/OPERATIONS.md): dead letters and read models.
  not_parked: {
    status: 404,
    message: "no parked record at that topic, partition and offset",
    retryable: false,
  },
  already_redriven: {
    status: 409,
    message: "the parked record was re-driven already: it goes back once",
    retryable: false,
  },
  read_model_not_found: { status: 404, message: "no such followed read-model table", retryable: false },
  read_model_exists: {
    status: 409,
    message:
      "a table of that name exists or is written already: a rebuild takes a new name or a retired table",
    retryable: false,
  },
  read_model_active: {
    status: 409,
    message: "the gateways read this table: switch to another one first",
    retryable: false,
  },
  read_model_busy: {
    status: 409,
    message: "another read-model change is under way; retry once it is done",
    retryable: true,
  },
  read_model_behind: {
    status: 409,
    message: "the table's projector has not caught up with the journal yet; retry shortly",
    retryable: true,
  },
  // Not retryable: the interface says a client retries 429, 5xx and network failures, never another 4xx.
  request_timeout: { status: 408, message: "the request took too long to arrive", retryable: false },
  body_too_large: { status: 413, message: "the request body is too large", retryable: false },
  unsupported_media_type: { status: 415, message: "the body must be application/json", retryable: false },
  rate_limited: { status: 429, message: "rate limit exceeded", retryable: true },
  too_many_streams: {
    status: 429,
    message: "too many open event streams from this address; close one or retry later",
    retryable: true,
  },
  headers_too_large: { status: 431, message: "the request headers are too large", retryable: false },
  internal: { status: 500, message: "internal error", retryable: true },
  // The interface's 502: an upstream chain RPC or relay failure, and the state is not changed.
  chain_unavailable: {
    status: 502,
    message: "the chain's RPC did not answer; nothing was changed, the request is safe to retry",
    retryable: true,
  },
  // A provider (src/providers/) failed, timed out or answered what we cannot read; nothing was changed.
  provider_unavailable: {
    status: 502,
    message: "a provider did not answer; nothing was changed, the request is safe to retry",
    retryable: true,
  },
  // Not retryable: the same refund fails the same way on chain (a new salt or a new balance is a new request).
  refund_failed: { status: 502, message: "the refund transaction failed", retryable: false },
  reply_timeout: {
    status: 503,
    message: "the session service did not answer in time; the request is safe to retry",
    retryable: true,
  },
  // Kafka or Cassandra cannot be reached (src/kafka/client.ts, src/store/cassandra.ts): an outage,
  // never a 500. Every write is idempotent (session id, Idempotency-Key), so repeating it is safe.
  service_unavailable: {
    status: 503,
    message: "a server the service depends on is unavailable; the request is safe to retry",
    retryable: true,
  },
  health_check_failed: { status: 503, message: "the health check could not run", retryable: true },
  shutting_down: { status: 503, message: "the gateway is shutting down; retry", retryable: true },
  refund_pending: {
    status: 504,
    message: "the refund was requested but its transaction was not sent in time; retry the same request",
    retryable: true,
  },
} as const satisfies Record<string, ErrorSpec>;

const REJECTION_ERRORS = Object.fromEntries(
  Object.entries(REJECTION_STATUSES).map(([code, spec]) => [
    code,
    { ...spec, message: REJECTION_MESSAGES[code as RejectionCode] },
  ]),
) as Record<RejectionCode, ErrorSpec>;

/** A failed signature check is the client's mistake, and the same request fails the same way. */
const AUTHORIZATION_ERRORS = Object.fromEntries(
  Object.entries(AUTHORIZATION_PROBLEMS).map(([code, message]) => [
    code,
    { status: 400, message, retryable: false },
  ]),
) as Record<SignatureProblemCode, ErrorSpec>;

/** The registry: the domain's rejections, the signature checks and the gateway's own errors. */
export const ERRORS: Record<ErrorCode, ErrorSpec> = {
  ...REJECTION_ERRORS,
  ...AUTHORIZATION_ERRORS,
  ...GATEWAY_ERRORS,
};
export type ErrorCode = RejectionCode | SignatureProblemCode | keyof typeof GATEWAY_ERRORS;

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERRORS, code);

export class GatewayError extends BaseError<ErrorCode> {
  override name = "GatewayError";
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  /** Extra response headers, e.g. Retry-After on 429 and 503. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message?: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    const spec = ERRORS[code];
    super(message ?? spec.message, { cause: options.cause });
    this.code = code;
    this.status = spec.status;
    this.retryable = spec.retryable;
    this.headers = options.headers ?? {};
  }
}

export const gatewayError = (
  code: ErrorCode,
  message?: string,
  options?: { headers?: Record<string, string>; cause?: unknown },
): GatewayError => new GatewayError(code, message, options);

/**
 * The error a command's reply stands for, or null when the owner accepted it (status 200, no code).
 * The status answered comes from the reply's code through the registry: the reply's own `status` is
 * a coarse accepted/refused kept for compatibility (schemas/README.md). A code the gateway does not
 * know is a bug between the two sides, answered as internal.
 */
export function replyError(reply: Pick<GatewayReply, "status" | "code" | "message">): GatewayError | null {
  if (reply.status === 200 && reply.code === null) return null;
  if (reply.code !== null && isErrorCode(reply.code))
    return gatewayError(reply.code, reply.message ?? undefined);
  const cause = new Error(`the owner answered status ${reply.status} with the unknown code ${reply.code}`);
  return gatewayError("internal", undefined, { cause });
}

// Fastify's own client errors, by code. Anything else it raises with a 4xx status is a 400.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "body_too_large",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "unsupported_media_type",
  FST_ERR_CTP_EMPTY_JSON_BODY: "invalid_json",
  FST_ERR_CTP_INVALID_JSON_BODY: "invalid_json",
};

/** A broker or node restarting takes seconds: asking sooner only adds load to the recovery. */
const OUTAGE_RETRY_AFTER_S = 5;

/** Turns whatever a request raised into a registered error. Unknown errors become `internal`. */
export function toGatewayError(err: unknown, context: { bodyLimitBytes?: number } = {}): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof ReplyTimeoutError) {
    return gatewayError("reply_timeout", undefined, { headers: { "retry-after": "1" }, cause: err });
  }
  // The session exists but its row is not projected yet: a read model behind, as good as down.
  if (err instanceof ProjectionBehindError) {
    return gatewayError("service_unavailable", undefined, { headers: { "retry-after": "1" }, cause: err });
  }
  if (isKafkaUnavailable(err) || isCassandraUnavailable(err)) {
    return gatewayError("service_unavailable", undefined, {
      headers: { "retry-after": String(OUTAGE_RETRY_AFTER_S) },
      cause: err,
    });
  }
  if (err instanceof ChainUnavailableError) {
    return gatewayError("chain_unavailable", undefined, { cause: err });
  }
  if (err instanceof ProviderUnavailableError) {
    return gatewayError("provider_unavailable", `${err.shortMessage}; nothing was changed, retry`, {
      cause: err,
    });
  }
  if (hasZodFastifySchemaValidationErrors(err)) {
    const [first, ...rest] = err.validation;
    const where = [err.validationContext, ...(first?.instancePath.split("/").filter(Boolean) ?? [])].join(
      ".",
    );
    const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
    return gatewayError("invalid_request", `${where}: ${first?.message ?? "invalid"}${more}`, { cause: err });
  }
  if (typeof err === "object" && err !== null) {
    const { code, statusCode, message } = err as { code?: unknown; statusCode?: unknown; message?: unknown };
    if (code === "FST_ERR_CTP_BODY_TOO_LARGE" && context.bodyLimitBytes !== undefined) {
      const message = `the request body is larger than ${context.bodyLimitBytes} bytes`;
      return gatewayError("body_too_large", message, { cause: err });
    }
    if (typeof code === "string" && FASTIFY_CODES[code] !== undefined) {
      return gatewayError(FASTIFY_CODES[code], undefined, { cause: err });
    }
    if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) {
      const fromFastify = typeof code === "string" && code.startsWith("FST_") && typeof message === "string";
      return gatewayError("invalid_request", fromFastify ? message : undefined, { cause: err });
    }
  }
  return gatewayError("internal", undefined, { cause: err });
}

/** Errors Node's HTTP parser raises before fastify sees a request (the socket is answered directly). */
export function fromClientError(err: unknown): GatewayError {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return gatewayError("request_timeout");
  if (code === "HPE_HEADER_OVERFLOW") return gatewayError("headers_too_large");
  return gatewayError("malformed_http");
}
