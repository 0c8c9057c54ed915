import type { Address, PublicClient } from "viem";
import type { ApiClient } from "../api-client.ts";
import type { Burner } from "../burner.ts";
import type { CheckoutCredentials } from "../checkout.ts";
import { type ApiError, ClientError, type SessionEndedError } from "../errors.ts";
import { followThenOpen } from "../follow-then-open.ts";
import type { CommitResponse, Quote, Session, StandingRefundWire } from "../types.ts";
import { commit } from "./commit.ts";
import { type CreateSessionReturnType, createSession } from "./create-session.ts";
import { getQuote } from "./get-quote.ts";
import { getSession } from "./get-session.ts";
import { quoteOnChain } from "./quote-on-chain.ts";
import { type SignIntentReturnType, signIntent } from "./sign-intent.ts";
import { type DetectedSession, isDetected, waitForDetection } from "./wait-for-detection.ts";
import { waitForStatus } from "./wait-for-status.ts";

const DEFAULT_SETTLEMENT_TIMEOUT_MS = 600_000;
/** Signing rounds at most: the first Intent, and a new one each time the deposit grew before the commit. */
const MAX_SIGN_ROUNDS = 3;

export interface PayDetectThenSignParameters {
  /** From `newBurner` (or `makeBurner` + `signAuthorization`) for the source chain. */
  burner: Burner;
  destination: { address: Address; chainId: number };
  /**
   * USDC's address per source chain id: a USDC deposit is not swapped, so it gets no quote and
   * its `min_out` is the amount. Any other token is quoted (`getQuote`).
   */
  usdc: Readonly<Record<number, Address>>;
  /**
   * A reader of the source chain through the payer's own RPC (viem's `createPublicClient`): a
   * swapped deposit's `min_out` is checked against its quote (`quoteOnChain`) before signing.
   * Without it, only USDC deposits are signed for; any other is refused (`verification_failed`).
   */
  publicClient?: Pick<PublicClient, "readContract"> | undefined;
  /** How far the service's `min_out` may sit below the payer's own quote, bps. Default 100. */
  minOutToleranceBps?: number | undefined;
  /**
   * The highest app fee the payer signs, bps (`signIntent`'s `maxAppFeeBps`). Default 0 here (an
   * anonymous session carries none); `payCheckout`'s default is DEFAULT_CHECKOUT_MAX_APP_FEE_BPS.
   */
  maxAppFeeBps?: number | undefined;
  /** Signed up front (`signStandingRefund`): where the money goes if the session expires or fails. */
  standingRefund?: StandingRefundWire | undefined;
  /**
   * Called once the session is open and its event stream is being followed: show `burner.address`
   * to the payer, or send the deposit. A rejection ends the flow with that error.
   */
  onCreated?: ((created: CreateSessionReturnType) => void | Promise<void>) | undefined;
  /** Every state the event stream sends, while waiting for detection and for settlement. */
  onSession?: ((session: Session) => void) | undefined;
  /** How long to wait for a deposit, ms. Default 600000. */
  detectionTimeout?: number | undefined;
  /** How long to wait from commit to `swept`, ms. Default 600000. */
  settlementTimeout?: number | undefined;
  /** How long the commit's retryable failures are retried, ms (commit's `retryFor`). */
  commitRetryFor?: number | undefined;
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export interface PayDetectThenSignReturnType {
  created: CreateSessionReturnType;
  detected: DetectedSession;
  /** null for a USDC deposit. */
  quote: Quote | null;
  signed: SignIntentReturnType;
  committed: CommitResponse;
  /** The session once `swept`: `outcome`, `sweep_tx`, `dest_tx` and the amounts are set. */
  settled: Session;
}
/**
 * Whatever the step that failed raises: ApiError (create, quote, a wait that timed out),
 * ClientError (`verification_failed`, `session_expired`, `commit_failed`, a wallet's refusal),
 * SessionEndedError (the session expired before a deposit, or failed after the commit: the money
 * then stays in the burner, for `refund` or the standing refund).
 */
export type PayDetectThenSignErrorType = ApiError | ClientError | SessionEndedError;

/**
 * The whole detect-then-sign flow in one call: create the session, wait for the deposit over SSE,
 * read the quote (not for USDC), sign the Intent for exactly what was detected, commit it (retried
 * while retryable: the burner is funded), and wait until the session is swept.
 *
 * @example
 * import { createApiClient, newBurner, payDetectThenSign } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const burner = await newBurner({ chainId: 31337, delegate: "0x…" });
 * const { settled } = await payDetectThenSign(client, {
 *   burner,
 *   destination: { address: "0x…", chainId: 31338 },
 *   usdc: { 31337: "0x…" },
 *   onCreated: () => console.log(`pay to ${burner.address}`),
 * });
 * console.log(settled.outcome, settled.dest_tx);
 */
export async function payDetectThenSign(
  client: ApiClient,
  params: PayDetectThenSignParameters,
): Promise<PayDetectThenSignReturnType> {
  const { burner, destination, signal } = params;
  const created = await createSession(client, {
    burner,
    destination,
    standingRefund: params.standingRefund,
    idempotencyKey: params.idempotencyKey,
    signal,
  });
  const rest = await settleDetectThenSign(client, created.id, params, () => params.onCreated?.(created));
  return { created, ...rest };
}

/** What the flow's steps options are, whoever opened the session (payDetectThenSign, payCheckout). */
export interface DetectThenSignSteps
  extends Pick<
    PayDetectThenSignParameters,
    | "burner"
    | "usdc"
    | "publicClient"
    | "minOutToleranceBps"
    | "maxAppFeeBps"
    | "onSession"
    | "detectionTimeout"
    | "settlementTimeout"
    | "commitRetryFor"
    | "signal"
  > {
  /** The destination the payer asked for (checked against the session's); none for checkout. */
  destination?: PayDetectThenSignParameters["destination"] | undefined;
  /** A checkout session's `pk_` and `cs_`; default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
}

/**
 * The flow after the session is open: follow its stream, call `opened` (the app shows the address
 * or pays), wait for the deposit, sign and commit it, wait until swept. Shared by payDetectThenSign
 * and payCheckout.
 */
export async function settleDetectThenSign(
  client: ApiClient,
  id: string,
  params: DetectThenSignSteps,
  opened: () => void | Promise<void>,
): Promise<Omit<PayDetectThenSignReturnType, "created">> {
  const { signal, onSession, checkout } = params;
  const first = await followThenOpen(
    (following) =>
      waitForDetection(client, {
        id,
        timeout: params.detectionTimeout,
        onSession,
        checkout,
        signal: following,
      }),
    opened,
    signal,
  );
  const { detected, quote, signed, committed } = await signAndCommit(client, id, first, params);
  const settled = await waitForStatus(client, {
    id,
    status: "swept",
    timeout: params.settlementTimeout ?? DEFAULT_SETTLEMENT_TIMEOUT_MS,
    onSession,
    checkout,
    signal,
  });
  return { detected, quote, signed, committed, settled };
}

/**
 * Quote, sign and commit for the detected deposit. A commit refused because the deposit grew in
 * the meantime (a second transfer of the token raises `detected_amount`, and the Intent signed for
 * the first amount no longer matches) is signed again for the session as it is now, up to
 * MAX_SIGN_ROUNDS Intents in all; any other failure is thrown as it is.
 */
async function signAndCommit(
  client: ApiClient,
  id: string,
  first: DetectedSession,
  params: DetectThenSignSteps,
) {
  const { burner, destination, signal, checkout } = params;
  let detected = first;
  for (let round = 1; ; round++) {
    const usdc = params.usdc[detected.source_chain_id];
    const isUsdc = usdc?.toLowerCase() === detected.detected_token.toLowerCase();
    const quote = isUsdc ? null : await getQuote(client, { id, checkout, signal });
    const ownEstimatedOut =
      isUsdc || params.publicClient === undefined
        ? undefined
        : await quoteOnChain(params.publicClient, {
            delegate: burner.eip7702Auth.address,
            token: detected.detected_token,
            amountIn: BigInt(detected.detected_amount),
          });
    const signed = await signIntent({
      signer: burner.account,
      session: detected,
      quote,
      destination,
      maxAppFeeBps: params.maxAppFeeBps,
      ownEstimatedOut,
      minOutToleranceBps: params.minOutToleranceBps,
    });
    try {
      const committed = await commit(client, {
        id,
        burner,
        signed,
        retryFor: params.commitRetryFor,
        checkout,
        signal,
      });
      return { detected, quote, signed, committed };
    } catch (err) {
      const refused = err instanceof ClientError && err.code === "commit_failed" && !err.retryable;
      const now = refused && round < MAX_SIGN_ROUNDS ? await getSession(client, { id, signal }) : null;
      if (now === null || !isDetected(now) || !depositChanged(detected, now)) throw err;
      detected = now;
    }
  }
}

const depositChanged = (a: DetectedSession, b: DetectedSession) =>
  a.source_chain_id !== b.source_chain_id ||
  a.detected_token.toLowerCase() !== b.detected_token.toLowerCase() ||
  a.detected_amount !== b.detected_amount;
