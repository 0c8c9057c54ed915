import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { type DelegateChain, evmSignatureChecks } from "../../src/chains/evm/typed-data/authorization.ts";
import { standingRefundTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { expectedDelegate } from "../../src/chains/signatures.ts";
import type { Address, Authorization, StandingRefund } from "../../src/domain/types.ts";

const burner = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const OTHER: Address = "0x2222222222222222222222222222222222222222";
const chains = [
  { chainId: 31337, delegate: DELEGATE },
  { chainId: 31338, delegate: DELEGATE },
];
const NOW = 1_800_000_000;
const checkAuthorization = (auth: Authorization, signer: Address, over: readonly DelegateChain[]) =>
  evmSignatureChecks(over).authorization(auth, signer);
const checkStandingRefund = (refund: StandingRefund, signer: Address, now: number) =>
  evmSignatureChecks(chains).standingRefund(refund, signer, now);

async function authorization(
  signer = burner,
  params: { address?: Address; chainId?: number; nonce?: number } = {},
): Promise<Authorization> {
  const signed = await signer.signAuthorization({
    address: params.address ?? DELEGATE,
    chainId: params.chainId ?? 31337,
    nonce: params.nonce ?? 0,
  });
  return {
    address: signed.address,
    chainId: signed.chainId,
    nonce: signed.nonce,
    r: signed.r,
    s: signed.s,
    yParity: signed.yParity ?? 0,
  };
}

async function standingRefund(
  signer = burner,
  chainIds = [31337],
  deadline = NOW + 3600,
): Promise<StandingRefund> {
  const to = stranger.address.toLowerCase() as Address;
  const signatures: Record<string, Hex> = {};
  for (const chainId of chainIds) {
    signatures[String(chainId)] = await signer.signTypedData(
      standingRefundTypedData(chainId, burner.address, { to, deadline: BigInt(deadline) }),
    );
  }
  return { to, deadline, signatures };
}

/** The other signature of the same message: s -> n - s, parity flipped. Valid for ecrecover, refused by EIP-2. */
function malleate(auth: Authorization): Authorization {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const s = `0x${(n - BigInt(auth.s)).toString(16).padStart(64, "0")}` as Hex;
  return { ...auth, s, yParity: auth.yParity === 0 ? 1 : 0 };
}

describe("EIP-7702 authorization", () => {
  it("accepts an authorization the burner signed for the configured delegate", async () => {
    expect(await checkAuthorization(await authorization(), burner.address, chains)).toEqual({ ok: true });
  });

  it("accepts the burner address in any case", async () => {
    const lower = burner.address.toLowerCase() as Address;
    expect((await checkAuthorization(await authorization(), lower, chains)).ok).toBe(true);
  });

  it("refuses an authorization signed by another key", async () => {
    const result = await checkAuthorization(await authorization(stranger), burner.address, chains);
    expect(result).toMatchObject({ ok: false, code: "authorization_not_burner" });
  });

  it("refuses an authorization to another contract", async () => {
    const result = await checkAuthorization(
      await authorization(burner, { address: OTHER }),
      burner.address,
      chains,
    );
    expect(result).toMatchObject({ ok: false, code: "authorization_wrong_delegate" });
  });

  it("refuses an authorization for a chain that is not configured", async () => {
    const result = await checkAuthorization(
      await authorization(burner, { chainId: 1 }),
      burner.address,
      chains,
    );
    expect(result).toMatchObject({ ok: false, code: "authorization_chain_unsupported" });
  });

  it("refuses a tampered authorization (the nonce changed after signing)", async () => {
    const auth = { ...(await authorization()), nonce: 1 };
    const result = await checkAuthorization(auth, burner.address, chains);
    expect(result.ok).toBe(false);
  });

  it("refuses the high-s twin of a valid signature", async () => {
    const result = await checkAuthorization(malleate(await authorization()), burner.address, chains);
    expect(result).toMatchObject({ ok: false, code: "authorization_invalid_signature" });
  });

  it("refuses r and s that are not on the curve without throwing", async () => {
    const auth = { ...(await authorization()), r: `0x${"00".repeat(32)}` as Hex };
    const result = await checkAuthorization(auth, burner.address, chains);
    expect(result.ok).toBe(false);
  });

  describe("chainId 0 (any chain)", () => {
    it("is accepted when every chain has the same delegate", async () => {
      const auth = await authorization(burner, { chainId: 0 });
      expect(await checkAuthorization(auth, burner.address, chains)).toEqual({ ok: true });
    });

    it("is refused when the chains' delegates differ", async () => {
      const mixed = [...chains, { chainId: 10, delegate: OTHER }];
      const auth = await authorization(burner, { chainId: 0 });
      expect(await checkAuthorization(auth, burner.address, mixed)).toMatchObject({
        ok: false,
        code: "authorization_chain_unsupported",
      });
    });

    it("is refused when no chain is configured", () => {
      expect(expectedDelegate(0, []).ok).toBe(false);
    });
  });
});

describe("standing refund", () => {
  it("accepts signatures by the burner for each source chain", async () => {
    const refund = await standingRefund(burner, [31337, 31338]);
    expect(await checkStandingRefund(refund, burner.address, NOW)).toEqual({ ok: true });
  });

  it("refuses a signature by another key", async () => {
    const refund = await standingRefund(stranger);
    expect(await checkStandingRefund(refund, burner.address, NOW)).toMatchObject({
      ok: false,
      code: "standing_refund_invalid_signature",
    });
  });

  it("refuses a signature filed under another chain than the one it was signed for", async () => {
    const refund = await standingRefund(burner, [31337]);
    refund.signatures = { "31338": refund.signatures["31337"] as Hex };
    expect((await checkStandingRefund(refund, burner.address, NOW)).ok).toBe(false);
  });

  it("refuses a recipient other than the signed one", async () => {
    const refund = { ...(await standingRefund()), to: OTHER };
    expect((await checkStandingRefund(refund, burner.address, NOW)).ok).toBe(false);
  });

  it("refuses a deadline that has passed, or is now", async () => {
    const refund = await standingRefund(burner, [31337], NOW);
    expect(await checkStandingRefund(refund, burner.address, NOW)).toMatchObject({
      ok: false,
      code: "standing_refund_expired",
    });
  });

  it("refuses a signature with v 0/1 that the contract's ECDSA would not accept", async () => {
    const refund = await standingRefund();
    const sig = refund.signatures["31337"] as Hex;
    const v = Number.parseInt(sig.slice(130), 16) - 27;
    refund.signatures["31337"] = `${sig.slice(0, 130)}0${v}` as Hex;
    expect((await checkStandingRefund(refund, burner.address, NOW)).ok).toBe(false);
  });
});
