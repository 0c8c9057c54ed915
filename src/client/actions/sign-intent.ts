import { type Address, bytesToHex, type Hex, type LocalAccount } from "viem";
import { type IntentMessage, intentTypedData } from "../../chains/evm/typed-data/eip712.ts";
import { ClientError, walletCall } from "../errors.ts";
import type { IntentWire, Quote, Session } from "../types.ts";
import { isDetected } from "./wait-for-detection.ts";

/** How long a signed Intent stays valid by default: long enough for retried commits and a slow sweep. */
export const DEFAULT_INTENT_TTL_S = 3600;

export interface BuildIntentParameters {
  /** The session after detection (`waitForDetection`). */
  session: Session;
  /**
   * The quote for a swapped deposit (`getQuote`): its `suggested_min_out` becomes `min_out`. `null`
   * for a USDC deposit, which is not swapped: `min_out` is then the detected amount.
   */
  quote: Pick<Quote, "estimated_out" | "suggested_min_out"> | null;
  /** Unix seconds. Default now + 3600. */
  deadline?: number | undefined;
  /** 32 bytes of 0x hex, unique per Intent. Default 32 random bytes. */
  salt?: Hex | undefined;
  /**
   * The destination the payer asked for: when given, a session that names another one is refused
   * (`verification_failed`) instead of signed. The Intent always takes the session's.
   */
  destination?: { address: Address; chainId: number } | undefined;
  /**
   * The highest app fee the payer accepts, in basis points: a session asking for more is refused
   * (`verification_failed`) before anything is signed. Default 0, what an anonymous session
   * carries; `payCheckout` passes DEFAULT_CHECKOUT_MAX_APP_FEE_BPS unless told otherwise.
   */
  maxAppFeeBps?: number | undefined;
  /**
   * The payer's own estimate of the swap's USDC output (`quoteOnChain`, through the payer's RPC).
   * Required with a `quote`: its `suggested_min_out` is signed only when it is no more than
   * `minOutToleranceBps` below this estimate, so a gateway that lies cannot set a floor of 1.
   */
  ownEstimatedOut?: bigint | undefined;
  /** How far below `ownEstimatedOut` the service's floor may be, bps. Default 100 (1%). */
  minOutToleranceBps?: number | undefined;
  /** Unix ms; tests fix it. */
  now?: number | undefined;
}

/** The app fee a checkout payer accepts by default (10%): a merchant with a higher fee passes its own maximum. */
export const DEFAULT_CHECKOUT_MAX_APP_FEE_BPS = 1000;
/** How far the service's min_out may sit below the payer's own on-chain estimate by default: 1%. */
export const DEFAULT_MIN_OUT_TOLERANCE_BPS = 100;

export interface SignIntentParameters extends BuildIntentParameters {
  /** The burner's account (`makeBurner`): the Intent is signed by the burner's key. */
  signer: Pick<LocalAccount, "address" | "signTypedData">;
}

export interface SignIntentReturnType {
  intent: IntentWire;
  /** The Intent's EIP-712 signature on the source chain. */
  signature: Hex;
  /** The source chain: the signature's domain, and its key in `intent_sigs`. */
  chainId: number;
}
/**
 * `verification_failed`: the session is not this burner's, names another destination, asks for
 * more app fee than the payer accepts, suggests a `min_out` below the payer's own quote, or has no
 * deposit yet; `session_expired`: it expired; `wallet_rejected` / `wallet_error` from the signer.
 */
export type SignIntentErrorType = ClientError<
  "verification_failed" | "session_expired" | "wallet_rejected" | "wallet_error"
>;

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * The Intent in wire form for a detected session (pure): `in_token` / `max_in` are the detected
 * token and amount, `dest_*` and the app fee the session's, `min_out` the quote's suggested floor
 * (the amount for USDC), a deadline and a random salt.
 */
export function buildIntent(params: BuildIntentParameters): { intent: IntentWire; chainId: number } {
  const { session, destination } = params;
  if (session.status === "expired")
    throw new ClientError("session_expired", `session ${session.id} expired before it was signed for`);
  if (session.status !== "detected" || !isDetected(session))
    throw new ClientError(
      "verification_failed",
      `session ${session.id} is ${session.status}: an Intent is signed for a detected deposit only`,
    );
  if (session.dest_address === null || session.dest_chain_id === null)
    throw new ClientError(
      "verification_failed",
      `session ${session.id} has no destination for chain ${session.source_chain_id}: its merchant pinned none`,
    );
  if (
    destination &&
    (!sameAddress(destination.address, session.dest_address) || destination.chainId !== session.dest_chain_id)
  )
    throw new ClientError(
      "verification_failed",
      `session ${session.id} pays ${session.dest_address} on chain ${session.dest_chain_id}, not the destination asked for`,
    );
  const maxAppFeeBps = params.maxAppFeeBps ?? 0;
  if (session.app_fee_bps > maxAppFeeBps)
    throw new ClientError(
      "verification_failed",
      `session ${session.id} asks for an app fee of ${session.app_fee_bps} bps, above the ${maxAppFeeBps} bps the payer accepts`,
    );
  const minOut = params.quote === null ? session.detected_amount : params.quote.suggested_min_out;
  if (!/^[1-9][0-9]*$/.test(minOut))
    throw new ClientError("verification_failed", `min_out ${minOut} is not a positive amount`);
  if (params.quote !== null) checkMinOut(session.id, BigInt(minOut), params);
  const now = params.now ?? Date.now();
  const intent: IntentWire = {
    dest_chain_id: session.dest_chain_id,
    dest_addr: session.dest_address as Address,
    min_out: minOut,
    deadline: params.deadline ?? Math.floor(now / 1000) + DEFAULT_INTENT_TTL_S,
    salt: params.salt ?? bytesToHex(crypto.getRandomValues(new Uint8Array(32))),
    in_token: session.detected_token,
    max_in: session.detected_amount,
    app_fee_bps: session.app_fee_bps,
    app_fee_recipient: session.app_fee_recipient as Address,
  };
  return { intent, chainId: session.source_chain_id };
}

/**
 * A swapped deposit's floor is the service's suggestion: signed only when it is within the
 * tolerance of the payer's own on-chain estimate. Without one, nothing is signed: the library
 * never takes the service's word for what a deposit is worth.
 */
function checkMinOut(id: string, minOut: bigint, params: BuildIntentParameters): void {
  const own = params.ownEstimatedOut;
  if (own === undefined)
    throw new ClientError(
      "verification_failed",
      `session ${id}'s deposit is swapped, and no own on-chain quote (ownEstimatedOut, quoteOnChain) was given to check min_out against`,
    );
  const toleranceBps = params.minOutToleranceBps ?? DEFAULT_MIN_OUT_TOLERANCE_BPS;
  if (!Number.isInteger(toleranceBps) || toleranceBps < 0 || toleranceBps > 10_000)
    throw new ClientError("config_error", `minOutToleranceBps ${toleranceBps} is not an integer in 0..10000`);
  const floor = (own * BigInt(10_000 - toleranceBps)) / 10_000n;
  if (minOut < floor)
    throw new ClientError(
      "verification_failed",
      `min_out ${minOut} is below ${floor}, the payer's own quote of ${own} less ${toleranceBps} bps`,
    );
}

/** The wire Intent as the EIP-712 message (uint256 fields as bigints), the delegate's struct order. */
export function intentMessage(intent: IntentWire): IntentMessage {
  return {
    destChainId: BigInt(intent.dest_chain_id),
    destAddr: intent.dest_addr,
    minOut: BigInt(intent.min_out),
    deadline: BigInt(intent.deadline),
    salt: intent.salt,
    inToken: intent.in_token,
    maxIn: BigInt(intent.max_in),
    appFeeBps: intent.app_fee_bps,
    appFeeRecipient: intent.app_fee_recipient,
  };
}

/**
 * Builds the Intent for a detected session (`buildIntent`) and signs it with the burner's key
 * (viem's `signTypedData`; domain BurnerDelegate v2, the source chain, the burner as verifying
 * contract). The session must be the burner's.
 *
 * @example
 * import { getQuote, signIntent, waitForDetection } from "deposit-settlement/client";
 * const detected = await waitForDetection(client, { id });
 * const quote = detected.detected_token === usdc ? null : await getQuote(client, { id });
 * const signed = await signIntent({ signer: burner.account, session: detected, quote });
 */
export async function signIntent(params: SignIntentParameters): Promise<SignIntentReturnType> {
  if (
    params.session.burner_address === null ||
    !sameAddress(params.session.burner_address, params.signer.address)
  )
    throw new ClientError(
      "verification_failed",
      `session ${params.session.id} belongs to burner ${params.session.burner_address}, not ${params.signer.address}`,
    );
  const { intent, chainId } = buildIntent(params);
  const typed = intentTypedData(chainId, params.signer.address, intentMessage(intent));
  const signature = await walletCall("the Intent", () => params.signer.signTypedData(typed));
  return { intent, signature, chainId };
}
