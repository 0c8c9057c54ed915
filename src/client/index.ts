/**
 * The payer's client library (`deposit-settlement/client`): a burner and its EIP-7702 authorization,
 * a typed API client with the interface's timeout and retry rules, one action per route and per
 * signature, and the detect-then-sign flow in one call (`payDetectThenSign`; `payCheckout` for a
 * merchant's checkout session, whose calls carry its pk_ and cs_; `paySolanaDetectThenSign` for a
 * Solana deposit, with its burner keypair, registration, sweep and refunds). Everything here runs
 * in a browser as well as in Node: no Node built-ins, no server code. docs/CLIENT.md is its manual.
 */

export {
  type AttachSolanaBounceSetupErrorType,
  type AttachSolanaBounceSetupParameters,
  type AttachSolanaBounceSetupReturnType,
  attachSolanaBounceSetup,
} from "./actions/attach-solana-bounce-setup.ts";
export {
  type AttachStandingRefundErrorType,
  type AttachStandingRefundParameters,
  type AttachStandingRefundReturnType,
  attachStandingRefund,
} from "./actions/attach-standing-refund.ts";
export {
  type CommitErrorType,
  type CommitParameters,
  type CommitReturnType,
  commit,
  DEFAULT_COMMIT_RETRY_MS,
} from "./actions/commit.ts";
export {
  type CommitSolanaSweepErrorType,
  type CommitSolanaSweepParameters,
  type CommitSolanaSweepReturnType,
  commitSolanaSweep,
  DEFAULT_SOLANA_COMMIT_RETRY_MS,
} from "./actions/commit-solana-sweep.ts";
export {
  type CreateSessionErrorType,
  type CreateSessionParameters,
  type CreateSessionReturnType,
  createSession,
} from "./actions/create-session.ts";
export {
  type CreateSolanaSessionErrorType,
  type CreateSolanaSessionParameters,
  type CreateSolanaSessionReturnType,
  createSolanaSession,
} from "./actions/create-solana-session.ts";
export {
  type DeriveStealthKeyErrorType,
  type DeriveStealthKeyParameters,
  type DeriveStealthKeyReturnType,
  deriveStealthKey,
} from "./actions/derive-stealth-key.ts";
export {
  type GetBalancesErrorType,
  type GetBalancesParameters,
  type GetBalancesReturnType,
  getBalances,
} from "./actions/get-balances.ts";
export {
  type GetQuoteErrorType,
  type GetQuoteParameters,
  type GetQuoteReturnType,
  getQuote,
} from "./actions/get-quote.ts";
export {
  type GetSessionErrorType,
  type GetSessionParameters,
  type GetSessionReturnType,
  getSession,
} from "./actions/get-session.ts";
export {
  type GetSolanaBlockhashErrorType,
  type GetSolanaBlockhashParameters,
  type GetSolanaBlockhashReturnType,
  getSolanaBlockhash,
} from "./actions/get-solana-blockhash.ts";
export {
  type GetSwapQuoteErrorType,
  type GetSwapQuoteParameters,
  type GetSwapQuoteReturnType,
  getSwapQuote,
} from "./actions/get-swap-quote.ts";
export {
  type GetTokenOptionsErrorType,
  type GetTokenOptionsParameters,
  type GetTokenOptionsReturnType,
  getTokenOptions,
} from "./actions/get-token-options.ts";
export {
  BOUNCE_SETUP_REFRESH_MS,
  type KeepSolanaBounceSetupErrorType,
  type KeepSolanaBounceSetupParameters,
  type KeepSolanaBounceSetupReturnType,
  keepSolanaBounceSetup,
} from "./actions/keep-solana-bounce-setup.ts";
export {
  type MakeBurnerParameters,
  type MakeBurnerReturnType,
  makeBurner,
} from "./actions/make-burner.ts";
export {
  type MakeSolanaBurnerParameters,
  type MakeSolanaBurnerReturnType,
  makeSolanaBurner,
} from "./actions/make-solana-burner.ts";
export {
  type PayCheckoutErrorType,
  type PayCheckoutParameters,
  type PayCheckoutReturnType,
  payCheckout,
} from "./actions/pay-checkout.ts";
export {
  type PayDetectThenSignErrorType,
  type PayDetectThenSignParameters,
  type PayDetectThenSignReturnType,
  payDetectThenSign,
} from "./actions/pay-detect-then-sign.ts";
export {
  type PaySolanaDetectThenSignErrorType,
  type PaySolanaDetectThenSignParameters,
  type PaySolanaDetectThenSignReturnType,
  paySolanaDetectThenSign,
} from "./actions/pay-solana-detect-then-sign.ts";
export {
  type PaySolanaSessionErrorType,
  type PaySolanaSessionParameters,
  type PaySolanaSessionReturnType,
  paySolanaSession,
} from "./actions/pay-solana-session.ts";
export {
  type QuoteOnChainErrorType,
  type QuoteOnChainParameters,
  type QuoteOnChainReturnType,
  quoteOnChain,
} from "./actions/quote-on-chain.ts";
export {
  type RefundErrorType,
  type RefundParameters,
  type RefundReturnType,
  refund,
} from "./actions/refund.ts";
export {
  type RefundAllErrorType,
  type RefundAllParameters,
  type RefundAllReturnType,
  refundAll,
} from "./actions/refund-all.ts";
export {
  type RefundSolanaErrorType,
  type RefundSolanaParameters,
  type RefundSolanaReturnType,
  refundSolana,
} from "./actions/refund-solana.ts";
export {
  type RefundSolanaSolErrorType,
  type RefundSolanaSolParameters,
  type RefundSolanaSolReturnType,
  refundSolanaSol,
} from "./actions/refund-solana-sol.ts";
export {
  type RegisterBurnerBody,
  type RegisterBurnerErrorType,
  type RegisterBurnerParameters,
  type RegisterBurnerReturnType,
  registerBurner,
} from "./actions/register-burner.ts";
export {
  type RegisterSolanaBurnerErrorType,
  type RegisterSolanaBurnerParameters,
  type RegisterSolanaBurnerReturnType,
  registerSolanaBurner,
} from "./actions/register-solana-burner.ts";
export {
  announcementsInTransaction,
  type ScanSolanaStealthAnnouncementsErrorType,
  type ScanSolanaStealthAnnouncementsParameters,
  type SolanaStealthPayment,
  scanSolanaStealthAnnouncements,
} from "./actions/scan-solana-stealth-announcements.ts";
export {
  type ScanStealthAnnouncementsErrorType,
  type ScanStealthAnnouncementsParameters,
  type ScanStealthAnnouncementsReturnType,
  type StealthPayment,
  scanStealthAnnouncements,
} from "./actions/scan-stealth-announcements.ts";
export {
  type SignAuthorizationErrorType,
  type SignAuthorizationParameters,
  type SignAuthorizationReturnType,
  signAuthorization,
} from "./actions/sign-authorization.ts";
export {
  type BuildIntentParameters,
  buildIntent,
  DEFAULT_CHECKOUT_MAX_APP_FEE_BPS,
  DEFAULT_INTENT_TTL_S,
  DEFAULT_MIN_OUT_TOLERANCE_BPS,
  intentMessage,
  type SignIntentErrorType,
  type SignIntentParameters,
  type SignIntentReturnType,
  signIntent,
} from "./actions/sign-intent.ts";
export {
  DEFAULT_REFUND_TTL_S,
  type SignRefundErrorType,
  type SignRefundParameters,
  type SignRefundReturnType,
  signRefund,
} from "./actions/sign-refund.ts";
export {
  type SignSolanaBounceSetupErrorType,
  type SignSolanaBounceSetupParameters,
  type SignSolanaBounceSetupReturnType,
  signSolanaBounceSetup,
} from "./actions/sign-solana-bounce-setup.ts";
export {
  type SignSolanaRegistrationErrorType,
  type SignSolanaRegistrationParameters,
  type SignSolanaRegistrationReturnType,
  signSolanaRegistration,
  solanaRegistrationMessage,
} from "./actions/sign-solana-registration.ts";
export {
  type SignSolanaSessionErrorType,
  type SignSolanaSessionParameters,
  type SignSolanaSessionReturnType,
  signSolanaSession,
  solanaSessionMessage,
} from "./actions/sign-solana-session.ts";
export {
  DEFAULT_SOLANA_MAX_FEE_BPS,
  type SignSolanaSweepErrorType,
  type SignSolanaSweepParameters,
  type SignSolanaSweepReturnType,
  signSolanaSweep,
} from "./actions/sign-solana-sweep.ts";
export {
  DEFAULT_STANDING_REFUND_TTL_S,
  type SignStandingRefundErrorType,
  type SignStandingRefundParameters,
  type SignStandingRefundReturnType,
  signStandingRefund,
} from "./actions/sign-standing-refund.ts";
export {
  DEFAULT_STEALTH_WITHDRAW_TTL_S,
  type SignStealthWithdrawalErrorType,
  type SignStealthWithdrawalParameters,
  type SignStealthWithdrawalReturnType,
  signStealthWithdrawal,
} from "./actions/sign-stealth-withdrawal.ts";
export {
  type DetectedSession,
  isDetected,
  type WaitForDetectionErrorType,
  type WaitForDetectionParameters,
  type WaitForDetectionReturnType,
  waitForDetection,
} from "./actions/wait-for-detection.ts";
export {
  type DetectedSolanaSession,
  type WaitForSolanaDetectionErrorType,
  type WaitForSolanaDetectionParameters,
  type WaitForSolanaDetectionReturnType,
  waitForSolanaDetection,
} from "./actions/wait-for-solana-detection.ts";
export {
  hasReached,
  type WaitForStatusErrorType,
  type WaitForStatusParameters,
  type WaitForStatusReturnType,
  waitForStatus,
} from "./actions/wait-for-status.ts";
export {
  type WithdrawSolanaStealthErrorType,
  type WithdrawSolanaStealthParameters,
  type WithdrawSolanaStealthReturnType,
  withdrawSolanaStealth,
} from "./actions/withdraw-solana-stealth.ts";
export {
  type WithdrawStealthErrorType,
  type WithdrawStealthParameters,
  type WithdrawStealthReturnType,
  withdrawStealth,
} from "./actions/withdraw-stealth.ts";

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
export { type CheckoutCredentials, checkoutHeaders, withCheckoutQuery } from "./checkout.ts";
export {
  ApiError,
  type ApiErrorKind,
  CLIENT_ERROR_CODES,
  ClientError,
  type ClientErrorCode,
  clientErrorCode,
  isWalletRejection,
  SessionEndedError,
} from "./errors.ts";
export type {
  Balances,
  CommitBody,
  CommitResponse,
  CreateSessionBody,
  CreateSessionResponse,
  CreateSolanaSessionBody,
  CreateSolanaSessionResponse,
  EvmSwapQuote,
  IntentWire,
  Quote,
  RefundAllBody,
  RefundAllResponse,
  RefundBody,
  RefundResponse,
  Session,
  SessionStatus,
  SolanaBlockhash,
  SolanaBurnerBody,
  SolanaBurnerResponse,
  SolanaCommitBody,
  SolanaRefundBody,
  SolanaRefundResponse,
  SolanaSwapQuote,
  SolanaSweepTerms,
  StandingRefundResponse,
  StandingRefundWire,
  StealthWithdrawBody,
  StealthWithdrawResponse,
  SwapQuote,
  SwapQuoteBody,
  TokenOption,
  TokenOptions,
} from "./types.ts";
