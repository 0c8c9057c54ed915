import type { Hex } from "viem";
import { hashAuthorization, hashTypedData } from "viem/utils";
import type { Address, ChainAddress } from "../../../domain/types.ts";
import type { GatewayChain, SignedMessage, Verdict } from "../../adapter.ts";
import type { SignatureProblemCode } from "../../signature-problems.ts";
import { type SignatureChecks, signatureChecks } from "../../signatures.ts";
import { intentTypedData, refundTypedData, standingRefundTypedData } from "./eip712.ts";
import { type RecoverableSignature, type RecoverSigner, recoverSigner } from "./recover.ts";

/**
 * The EVM family's signature checks (GatewayChain.verify): viem hashes (hashAuthorization,
 * hashTypedData); `recover` finds the signer (libsecp256k1 natively where it loads, see
 * ./recover.ts). No client, no clock.
 */

/** The part of a chain's configuration the checks need. */
export interface DelegateChain {
  chainId: number;
  delegate: Address;
}

const OK: Verdict = { ok: true };
const fail = (code: SignatureProblemCode, detail?: string): Verdict =>
  detail === undefined ? { ok: false, code } : { ok: false, code, detail };

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

/** The message `signed` as this chain's EIP-712 digest (the domain binds the chain and the burner). */
function typedDigest(
  chainId: number,
  burner: Address,
  signed: Exclude<SignedMessage, { kind: "authorization" }>,
): Hex {
  switch (signed.kind) {
    case "intent": {
      const { intent } = signed;
      return hashTypedData(
        intentTypedData(chainId, burner, {
          ...intent,
          destChainId: BigInt(intent.destChainId),
          deadline: BigInt(intent.deadline),
        }),
      );
    }
    case "standing_refund":
      return hashTypedData(
        standingRefundTypedData(chainId, burner, {
          to: signed.to as Address,
          deadline: BigInt(signed.deadline),
        }),
      );
    case "refund": {
      const { token, to } = signed.refund;
      return hashTypedData(
        refundTypedData(chainId, burner, { ...signed.refund, token: token as Address, to: to as Address }),
      );
    }
    default: {
      const never: never = signed;
      throw new Error(`no typed data for ${String(never)}`);
    }
  }
}

/** The authorization must target `delegate` (this chain's) and be signed by the burner (EIP-7702). */
async function verifyAuthorization(
  auth: Extract<SignedMessage, { kind: "authorization" }>["authorization"],
  burner: ChainAddress,
  delegate: Address | null,
  recover: RecoverSigner,
): Promise<Verdict> {
  if (delegate === null) return fail("authorization_chain_unsupported");
  if (auth.address.toLowerCase() !== delegate.toLowerCase()) {
    return fail("authorization_wrong_delegate", `expected ${delegate.toLowerCase()}`);
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

const PROBLEM_OF = {
  intent: "intent_invalid_signature",
  standing_refund: "standing_refund_invalid_signature",
  refund: "refund_invalid_signature",
} as const satisfies Record<Exclude<SignedMessage["kind"], "authorization">, SignatureProblemCode>;

/** One EVM chain's GatewayChain.verify: `delegate` is the chain's burner delegate. */
export function evmVerifier(
  chainId: number,
  delegate: Address | null,
  recover: RecoverSigner = recoverSigner.recover,
): GatewayChain["verify"] {
  return async (signer, signed) => {
    if (signed.kind === "authorization")
      return verifyAuthorization(signed.authorization, signer, delegate, recover);
    const code = PROBLEM_OF[signed.kind];
    if (!contractAcceptsSignature(signed.signature)) {
      return fail(code, "not a 65-byte low-s signature with v 27 or 28");
    }
    const burner = signer as Address;
    const recovered = await signerOf(
      () => typedDigest(chainId, burner, signed),
      signed.signature as Hex,
      recover,
    );
    return recovered !== null && recovered.toLowerCase() === burner.toLowerCase() ? OK : fail(code);
  };
}

/** The checks over EVM chains given by their delegates, without adapters (tests and benches of the checks). */
export function evmSignatureChecks(
  chains: readonly DelegateChain[],
  recover: RecoverSigner = recoverSigner.recover,
): SignatureChecks {
  const verifiers = chains.map((c) => ({
    chainId: c.chainId,
    gateway: { burnerDelegate: c.delegate, verify: evmVerifier(c.chainId, c.delegate, recover) },
  }));
  return signatureChecks({
    byId: (chainId) => verifiers.find((c) => c.chainId === chainId)?.gateway,
    all: () => verifiers,
  });
}
