/**
 * The payer's client library (`deposit-settlement/client`): a burner and its EIP-7702 authorization,
 * a typed API client with the interface's timeout and retry rules, and one action per route.
 * Everything here runs in a browser as well as in Node: no Node built-ins, no server code.
 */
export {
  type CreateSessionErrorType,
  type CreateSessionParameters,
  type CreateSessionReturnType,
  createSession,
} from "./actions/create-session.ts";
export {
  type GetSessionErrorType,
  type GetSessionParameters,
  type GetSessionReturnType,
  getSession,
} from "./actions/get-session.ts";
export {
  hasReached,
  type WaitForStatusErrorType,
  type WaitForStatusParameters,
  type WaitForStatusReturnType,
  waitForStatus,
} from "./actions/wait-for-status.ts";
export {
  type ApiClient,
  type ApiClientConfig,
  type ApiRequest,
  createApiClient,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  type RetryPolicy,
} from "./api-client.ts";
export { type Burner, newBurner } from "./burner.ts";
export {
  ApiError,
  type ApiErrorKind,
  CLIENT_ERROR_CODES,
  type ClientErrorCode,
  SessionEndedError,
} from "./errors.ts";
export type { CreateSessionBody, CreateSessionResponse, Session, SessionStatus } from "./types.ts";
