import type { Authorization, ChainAddress, Intent, StandingRefund } from "../domain/types.ts";
import type { GatewayChain, RefundTerms, SignedMessage, Verdict } from "./adapter.ts";
import { AUTHORIZATION_PROBLEMS, type SignatureProblemCode } from "./signature-problems.ts";

/**
 * The signature checks a request passes before it becomes a command, over every configured chain:
 * each signature is checked by the adapter of the chain it is for (GatewayChain.verify), so the
 * routes name no family and no signing scheme.
 */

export type CheckResult = { ok: true } | { ok: false; code: SignatureProblemCode; message: string };

const OK: CheckResult = { ok: true };
const fail = (code: SignatureProblemCode, detail?: string): CheckResult => ({
  ok: false,
  code,
  message: detail === undefined ? AUTHORIZATION_PROBLEMS[code] : `${AUTHORIZATION_PROBLEMS[code]}: ${detail}`,
});
const resultOf = (verdict: Verdict): CheckResult => (verdict.ok ? OK : fail(verdict.code, verdict.detail));

/** The chains the checks may ask: by id, and all of them (for an authorization valid on every chain). */
export interface VerifyingChains {
  byId(chainId: number): Pick<GatewayChain, "burnerDelegate" | "verify"> | undefined;
  all(): ReadonlyArray<{ chainId: number; gateway: Pick<GatewayChain, "burnerDelegate" | "verify"> }>;
}

export interface SignatureChecks {
  /** The authorization must name the chain's burner delegate and be signed by the burner. */
  authorization(auth: Authorization, burner: ChainAddress): Promise<CheckResult>;
  /** Every per-chain signature must be the burner's, and the deadline (unix seconds) still ahead of `now`. */
  standingRefund(refund: StandingRefund, burner: ChainAddress, now: number): Promise<CheckResult>;
  /** The Intent is signed once per chain it may be swept on; every signature given must be the burner's. */
  intent(
    intent: Intent,
    signatures: Readonly<Record<string, string>>,
    burner: ChainAddress,
  ): Promise<CheckResult>;
  /** A burner-signed refund on one chain. */
  refund(refund: RefundTerms, chainId: number, signature: string, burner: ChainAddress): Promise<CheckResult>;
}

/**
 * The delegate an authorization must target. chainId 0 is valid on every chain, so it is only
 * acceptable when every chain with a burner delegate uses the same one.
 */
export function expectedDelegate(
  chainId: number,
  chains: ReadonlyArray<{ chainId: number; delegate: ChainAddress }>,
): { ok: true; delegate: ChainAddress } | { ok: false; message: string } {
  if (chainId !== 0) {
    const chain = chains.find((c) => c.chainId === chainId);
    return chain
      ? { ok: true, delegate: chain.delegate.toLowerCase() }
      : { ok: false, message: `chain ${chainId} is not supported` };
  }
  const delegates = new Set(chains.map((c) => c.delegate.toLowerCase()));
  const [only] = delegates;
  if (only === undefined) return { ok: false, message: "no chain is configured" };
  if (delegates.size > 1) {
    return { ok: false, message: "chainId 0 needs one delegate on every chain; sign for a specific chain" };
  }
  return { ok: true, delegate: only };
}

export function signatureChecks(chains: VerifyingChains): SignatureChecks {
  const delegating = () =>
    chains.all().flatMap((c) => {
      const delegate = c.gateway.burnerDelegate;
      return delegate === null ? [] : [{ chainId: c.chainId, delegate, gateway: c.gateway }];
    });

  /** Every (chain id, signature) must be the burner's under the message `signed(chainId)` names. */
  const perChain = async (
    signatures: Readonly<Record<string, string>>,
    signed: (signature: string) => SignedMessage,
    burner: ChainAddress,
    code: SignatureProblemCode,
  ): Promise<CheckResult> => {
    for (const [chainId, signature] of Object.entries(signatures)) {
      const chain = chains.byId(Number(chainId));
      // A signature for a chain the service does not run could never be used: refuse it, unread.
      if (chain === undefined) return fail(code, `chain ${chainId}: not a configured chain`);
      const verdict = await chain.verify(burner, signed(signature));
      if (!verdict.ok) {
        return fail(
          code,
          verdict.detail === undefined ? `chain ${chainId}` : `chain ${chainId}: ${verdict.detail}`,
        );
      }
    }
    return OK;
  };

  return {
    async authorization(auth, burner) {
      const candidates = delegating();
      const expected = expectedDelegate(auth.chainId, candidates);
      if (!expected.ok) return fail("authorization_chain_unsupported", expected.message);
      // chainId 0: every candidate has the expected delegate, so any of them checks it alike.
      const chain = candidates.find((c) => auth.chainId === 0 || c.chainId === auth.chainId);
      if (chain === undefined) return fail("authorization_chain_unsupported", "no chain is configured");
      return resultOf(await chain.gateway.verify(burner, { kind: "authorization", authorization: auth }));
    },

    async standingRefund(refund, burner, now) {
      if (refund.deadline <= now) return fail("standing_refund_expired");
      const { to, deadline } = refund;
      return perChain(
        refund.signatures,
        (signature) => ({ kind: "standing_refund", to, deadline, signature }),
        burner,
        "standing_refund_invalid_signature",
      );
    },

    intent(intent, signatures, burner) {
      return perChain(
        signatures,
        (signature) => ({ kind: "intent", intent, signature }),
        burner,
        "intent_invalid_signature",
      );
    },

    refund(refund, chainId, signature, burner) {
      return perChain(
        { [String(chainId)]: signature },
        (sig) => ({ kind: "refund", refund, signature: sig }),
        burner,
        "refund_invalid_signature",
      );
    },
  };
}
