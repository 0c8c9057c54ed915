import type { Hex } from "viem";
import { hashAuthorization, hashTypedData } from "viem/utils";
import type { Address, Authorization, Intent, StandingRefund } from "../../domain/types.ts";
import { intentTypedData, type RefundMessage, refundTypedData, standingRefundTypedData } from "./eip712.ts";
import { type RecoverableSignature, type RecoverSigner, recoverSigner } from "./recover.ts";

/**
 * Signature checks a burner's session request must pass before it becomes a command. viem hashes
 * (hashAuthorization, hashTypedData); `recover` finds the signer (libsecp256k1 natively where it loads,
 * see ./recover.ts). No client, no clock: the caller passes `now`.
 */

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

export type AuthorizationProblemCode = keyof typeof AUTHORIZATION_PROBLEMS;
export type CheckResult = { ok: true } | { ok: false; code: AuthorizationProblemCode; message: string };

/** The part of a chain's configuration the checks need. */
export interface DelegateChain {
  chainId: number;
  delegate: Address;
}

const OK: CheckResult = { ok: true };
const fail = (code: AuthorizationProblemCode, detail?: string): CheckResult => ({
  ok: false,
  code,
  message: detail === undefined ? AUTHORIZATION_PROBLEMS[code] : `${AUTHORIZATION_PROBLEMS[code]}: ${detail}`,
});

// EIP-7702 (via EIP-2) and OpenZeppelin's ECDSA both refuse an s in the upper half of the curve order,
// so such a signature can never delegate the burner or move funds; refuse it here, not at sweep time.
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const HEX = /^0x[0-9a-fA-F]+$/;
const isLowS = (s: string): boolean => HEX.test(s) && BigInt(s) <= SECP256K1_HALF_N;

/** A 65-byte r || s || v signature as BurnerDelegate's ECDSA.recover accepts it (v is 27 or 28). */
function contractAcceptsSignature(sig: string): boolean {
  if (!/^0x[0-9a-fA-F]{130}$/.test(sig)) return false;
  const v = Number.parseInt(sig.slice(130), 16);
  return (v === 27 || v === 28) && isLowS(`0x${sig.slice(66, 130)}`);
}

/** The signer, or null when the message cannot be hashed (viem throws) or the signature recovers to no key. */
async function signerOf(
  hash: () => Hex,
  signature: RecoverableSignature,
  recover: RecoverSigner,
): Promise<Address | null> {
  let digest: Hex;
  try {
    digest = hash();
  } catch {
    return null;
  }
  return recover(digest, signature);
}

/**
 * The delegate an authorization must target. chainId 0 is valid on every chain, so it is only
 * acceptable when every configured chain uses the same delegate.
 */
export function expectedDelegate(
  chainId: number,
  chains: readonly DelegateChain[],
): { ok: true; delegate: Address } | { ok: false; message: string } {
  if (chainId !== 0) {
    const chain = chains.find((c) => c.chainId === chainId);
    return chain
      ? { ok: true, delegate: chain.delegate.toLowerCase() as Address }
      : { ok: false, message: `chain ${chainId} is not supported` };
  }
  const delegates = new Set(chains.map((c) => c.delegate.toLowerCase() as Address));
  const [only] = delegates;
  if (only === undefined) return { ok: false, message: "no chain is configured" };
  if (delegates.size > 1) {
    return { ok: false, message: "chainId 0 needs one delegate on every chain; sign for a specific chain" };
  }
  return { ok: true, delegate: only };
}

/** The authorization must target the configured delegate and be signed by the burner. */
export async function checkAuthorization(
  auth: Authorization,
  burner: Address,
  chains: readonly DelegateChain[],
  recover: RecoverSigner = recoverSigner.recover,
): Promise<CheckResult> {
  const expected = expectedDelegate(auth.chainId, chains);
  if (!expected.ok) return fail("authorization_chain_unsupported", expected.message);
  if (auth.address.toLowerCase() !== expected.delegate) {
    return fail("authorization_wrong_delegate", `expected ${expected.delegate}`);
  }
  if (!isLowS(auth.s))
    return fail("authorization_invalid_signature", "s must be in the lower half of the curve order");
  // EIP-7702 recovers with y_parity as the raw recovery id, so 27/28 (which viem's recovery would
  // read as legacy v) has no authority; recoverAuthorizationAddress refuses them the same way.
  if (auth.yParity !== 0 && auth.yParity !== 1) return fail("authorization_invalid_signature");
  const authority = await signerOf(
    () => hashAuthorization({ address: auth.address, chainId: auth.chainId, nonce: auth.nonce }),
    { r: auth.r, s: auth.s, yParity: auth.yParity },
    recover,
  );
  // null: r or s outside the curve order, or no point for this yParity; no authority can be recovered.
  if (authority === null) return fail("authorization_invalid_signature");
  return authority.toLowerCase() === burner.toLowerCase() ? OK : fail("authorization_not_burner");
}

/**
 * A standing refund is signed once per source chain under that chain's domain; every signature must
 * recover to the burner, and the deadline must still be ahead (`now` in unix seconds).
 */
export async function checkStandingRefund(
  refund: StandingRefund,
  burner: Address,
  now: number,
  recover: RecoverSigner = recoverSigner.recover,
): Promise<CheckResult> {
  if (refund.deadline <= now) return fail("standing_refund_expired");
  const message = { to: refund.to, deadline: BigInt(refund.deadline) };
  return checkPerChain(
    refund.signatures,
    (chainId) => hashTypedData(standingRefundTypedData(chainId, burner, message)),
    burner,
    "standing_refund_invalid_signature",
    recover,
  );
}

/**
 * The Intent is signed once per chain it may be swept on (the domain binds the chain id, and the
 * verifying contract is the burner); every signature given must recover to the burner.
 */
export async function checkIntentSignatures(
  intent: Intent,
  signatures: Readonly<Record<string, Hex>>,
  burner: Address,
  recover: RecoverSigner = recoverSigner.recover,
): Promise<CheckResult> {
  const message = {
    ...intent,
    destChainId: BigInt(intent.destChainId),
    deadline: BigInt(intent.deadline),
  };
  return checkPerChain(
    signatures,
    (chainId) => hashTypedData(intentTypedData(chainId, burner, message)),
    burner,
    "intent_invalid_signature",
    recover,
  );
}

/** A burner-signed Refund for one chain. */
export async function checkRefundSignature(
  refund: RefundMessage,
  chainId: number,
  signature: Hex,
  burner: Address,
  recover: RecoverSigner = recoverSigner.recover,
): Promise<CheckResult> {
  return checkPerChain(
    { [String(chainId)]: signature },
    (id) => hashTypedData(refundTypedData(id, burner, refund)),
    burner,
    "refund_invalid_signature",
    recover,
  );
}

/** Every (chain id, signature) must be one the contract accepts and recover to the burner under `hash(chainId)`. */
async function checkPerChain(
  signatures: Readonly<Record<string, Hex>>,
  hash: (chainId: number) => Hex,
  burner: Address,
  code: AuthorizationProblemCode,
  recover: RecoverSigner,
): Promise<CheckResult> {
  for (const [chainId, signature] of Object.entries(signatures)) {
    if (!contractAcceptsSignature(signature)) {
      return fail(code, `chain ${chainId}: not a 65-byte low-s signature with v 27 or 28`);
    }
    const signer = await signerOf(() => hash(Number(chainId)), signature, recover);
    if (signer === null || signer.toLowerCase() !== burner.toLowerCase()) {
      return fail(code, `chain ${chainId}`);
    }
  }
  return OK;
}
