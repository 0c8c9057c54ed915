import { recoverTypedDataAddress } from "viem";
import { describe, expect, it } from "vitest";
import {
  intentTypedData,
  refundTypedData,
  standingRefundTypedData,
} from "../../src/chains/evm/typed-data/eip712.ts";
import { makeBurner } from "../../src/client/actions/make-burner.ts";
import {
  buildIntent,
  DEFAULT_CHECKOUT_MAX_APP_FEE_BPS,
  intentMessage,
  signIntent,
} from "../../src/client/actions/sign-intent.ts";
import { signRefund } from "../../src/client/actions/sign-refund.ts";
import { signStandingRefund } from "../../src/client/actions/sign-standing-refund.ts";
import type { ClientError } from "../../src/client/errors.ts";
import type { Session } from "../../src/client/types.ts";

// The Intent the client signs, built from a detected session (pure), and the three burner
// signatures, checked by recovering the signer with viem from the shared EIP-712 definitions.

const burner = makeBurner();
const NOW = Date.UTC(2026, 0, 1);
const USDC = "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9";
const DAI = "0x2279b7a0a67db372996a5fab50d91eaa73d2ebe6";
const DEST = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
const ZERO = "0x0000000000000000000000000000000000000000";

function detected(extra: Partial<Session> = {}): Session {
  return {
    id: "0f8fad5b-d9cb-469f-a165-70867728950e",
    status: "detected",
    burner_address: burner.address.toLowerCase(),
    dest_address: DEST,
    dest_chain_id: 31338,
    app_fee_bps: 0,
    app_fee_recipient: ZERO,
    source_chain_id: 31337,
    detected_token: USDC,
    detected_amount: "25000000",
    detected_tx: `0x${"ab".repeat(32)}`,
    ...extra,
  } as Session;
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err as ClientError;
  }
  throw new Error("expected a refusal");
};

describe("buildIntent", () => {
  it("signs exactly the detected deposit to the session's destination; min_out is the amount for USDC", () => {
    const salt = `0x${"11".repeat(32)}` as const;
    const { intent, chainId } = buildIntent({ session: detected(), quote: null, salt, now: NOW });
    expect(chainId).toBe(31337);
    expect(intent).toEqual({
      dest_chain_id: 31338,
      dest_addr: DEST,
      min_out: "25000000",
      deadline: NOW / 1000 + 3600,
      salt,
      in_token: USDC,
      max_in: "25000000",
      app_fee_bps: 0,
      app_fee_recipient: ZERO,
    });
  });

  it("takes min_out from the quote's suggested floor, and the app fee from the session", () => {
    const session = detected({
      detected_token: DAI,
      detected_amount: "10000000000000000000",
      app_fee_bps: 50,
      app_fee_recipient: DEST,
    });
    const { intent } = buildIntent({
      session,
      quote: { estimated_out: "9960000", suggested_min_out: "9910200" },
      ownEstimatedOut: 9_960_000n,
      maxAppFeeBps: 50,
      deadline: 1_900_000_000,
    });
    expect(intent).toMatchObject({
      in_token: DAI,
      max_in: "10000000000000000000",
      min_out: "9910200",
      deadline: 1_900_000_000,
      app_fee_bps: 50,
      app_fee_recipient: DEST,
    });
  });

  it("draws a fresh 32-byte salt for each Intent", () => {
    const salts = new Set(
      Array.from({ length: 20 }, () => buildIntent({ session: detected(), quote: null }).intent.salt),
    );
    expect(salts.size).toBe(20);
    for (const salt of salts) expect(salt).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("refuses a session with no deposit, an expired one, another destination and a zero floor", () => {
    expect(
      refusal(() => buildIntent({ session: detected({ status: "pending" }), quote: null })),
    ).toMatchObject({
      code: "verification_failed",
      retryable: false,
    });
    expect(
      refusal(() => buildIntent({ session: detected({ detected_amount: null }), quote: null })),
    ).toMatchObject({ code: "verification_failed" });
    expect(
      refusal(() => buildIntent({ session: detected({ status: "expired" }), quote: null })),
    ).toMatchObject({
      code: "session_expired",
    });
    const elsewhere = { address: "0x000000000000000000000000000000000000dEaD", chainId: 31338 } as const;
    expect(
      refusal(() => buildIntent({ session: detected(), quote: null, destination: elsewhere })),
    ).toMatchObject({
      code: "verification_failed",
    });
    // The same destination in another case is the same address.
    const asked = { address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", chainId: 31338 } as const;
    expect(buildIntent({ session: detected(), quote: null, destination: asked }).intent.dest_addr).toBe(DEST);
    const quote = { estimated_out: "0", suggested_min_out: "0" };
    expect(refusal(() => buildIntent({ session: detected(), quote }))).toMatchObject({
      code: "verification_failed",
    });
  });
});

describe("buildIntent refuses what the payer would not sign", () => {
  const swapped = (extra: Partial<Session> = {}) =>
    detected({ detected_token: DAI, detected_amount: "10000000000000000000", ...extra });
  const quote = (minOut: string) => ({ estimated_out: "9960000", suggested_min_out: minOut });

  it("an app fee above the payer's maximum: none by default, as an anonymous session carries", () => {
    const greedy = detected({ app_fee_bps: 9900, app_fee_recipient: DEST });
    expect(refusal(() => buildIntent({ session: greedy, quote: null }))).toMatchObject({
      code: "verification_failed",
      message: expect.stringContaining("9900 bps"),
    });
    expect(
      refusal(() =>
        buildIntent({ session: greedy, quote: null, maxAppFeeBps: DEFAULT_CHECKOUT_MAX_APP_FEE_BPS }),
      ),
    ).toMatchObject({ code: "verification_failed" });
    const fair = detected({ app_fee_bps: 50, app_fee_recipient: DEST });
    expect(refusal(() => buildIntent({ session: fair, quote: null }))).toMatchObject({
      code: "verification_failed",
    });
    expect(buildIntent({ session: fair, quote: null, maxAppFeeBps: 50 }).intent.app_fee_bps).toBe(50);
  });

  it("a swapped deposit without the payer's own on-chain quote", () => {
    expect(refusal(() => buildIntent({ session: swapped(), quote: quote("9910200") }))).toMatchObject({
      code: "verification_failed",
      message: expect.stringContaining("own on-chain quote"),
    });
  });

  it("a min_out further below the payer's own quote than the tolerance (1% by default)", () => {
    const own = 9_960_000n; // 1% below: 9_860_400
    expect(
      refusal(() => buildIntent({ session: swapped(), quote: quote("1"), ownEstimatedOut: own })),
    ).toMatchObject({ code: "verification_failed", message: expect.stringContaining("below 9860400") });
    expect(
      refusal(() => buildIntent({ session: swapped(), quote: quote("9860399"), ownEstimatedOut: own })),
    ).toMatchObject({ code: "verification_failed" });
    const atFloor = buildIntent({ session: swapped(), quote: quote("9860400"), ownEstimatedOut: own });
    expect(atFloor.intent.min_out).toBe("9860400");
    // A wider tolerance is the payer's choice; an impossible one is a configuration error.
    const wide = {
      session: swapped(),
      quote: quote("9000000"),
      ownEstimatedOut: own,
      minOutToleranceBps: 1000,
    };
    expect(buildIntent(wide).intent.min_out).toBe("9000000");
    expect(refusal(() => buildIntent({ ...wide, minOutToleranceBps: 10_001 }))).toMatchObject({
      code: "config_error",
    });
  });

  it("signIntent never asks the wallet to sign a refused Intent", async () => {
    let asked = 0;
    const wallet = {
      address: burner.address,
      signTypedData: () => {
        asked++;
        return burner.account.signTypedData({} as never);
      },
    };
    const greedy = detected({ app_fee_bps: 9900, app_fee_recipient: DEST });
    await expect(signIntent({ signer: wallet, session: greedy, quote: null })).rejects.toMatchObject({
      code: "verification_failed",
    });
    await expect(
      signIntent({ signer: wallet, session: swapped(), quote: quote("1"), ownEstimatedOut: 9_960_000n }),
    ).rejects.toMatchObject({ code: "verification_failed" });
    expect(asked).toBe(0);
  });
});

describe("the burner's signatures", () => {
  it("signIntent signs the Intent on the source chain with the burner's key", async () => {
    const signed = await signIntent({ signer: burner.account, session: detected(), quote: null });
    const signer = await recoverTypedDataAddress({
      ...intentTypedData(31337, burner.address, intentMessage(signed.intent)),
      signature: signed.signature,
    });
    expect(signer).toBe(burner.address);
    // The domain binds the chain: the same signature names another signer on another chain.
    const elsewhere = await recoverTypedDataAddress({
      ...intentTypedData(31338, burner.address, intentMessage(signed.intent)),
      signature: signed.signature,
    });
    expect(elsewhere).not.toBe(burner.address);
  });

  it("signIntent refuses a session of another burner", async () => {
    const other = makeBurner();
    await expect(
      signIntent({ signer: other.account, session: detected(), quote: null }),
    ).rejects.toMatchObject({
      code: "verification_failed",
    });
  });

  it("a wallet's refusal is wallet_rejected, any other wallet failure wallet_error", async () => {
    const wallet = (err: unknown) => ({
      address: burner.address,
      signTypedData: () => Promise.reject(err),
    });
    const rejected = Object.assign(new Error("User rejected the request."), { code: 4001 });
    await expect(
      signIntent({
        signer: wallet(new Error("wrapped", { cause: rejected })),
        session: detected(),
        quote: null,
      }),
    ).rejects.toMatchObject({ name: "ClientError", code: "wallet_rejected", retryable: false });
    await expect(
      signIntent({ signer: wallet(new Error("device unplugged")), session: detected(), quote: null }),
    ).rejects.toMatchObject({ code: "wallet_error" });
  });

  it("signRefund signs (token, to, amount, deadline, salt) for one chain, in the refund route's body", async () => {
    const body = await signRefund({
      signer: burner.account,
      chainId: 31337,
      token: USDC,
      to: DEST,
      amount: 25_000_000n,
      now: NOW,
    });
    expect(body).toMatchObject({
      token: USDC,
      to: DEST,
      amount: "25000000",
      chain_id: 31337,
      deadline: NOW / 1000 + 3600,
    });
    const message = {
      token: USDC,
      to: DEST,
      amount: 25_000_000n,
      deadline: BigInt(body.deadline),
      salt: body.salt,
    } as const;
    expect(
      await recoverTypedDataAddress({
        ...refundTypedData(31337, burner.address, message),
        signature: body.signature,
      }),
    ).toBe(burner.address);
    await expect(
      signRefund({ signer: burner.account, chainId: 31337, token: USDC, to: DEST, amount: 0n }),
    ).rejects.toMatchObject({ code: "config_error" });
  });

  it("signStandingRefund signs StandingRefund(to, deadline) once per source chain", async () => {
    const standing = await signStandingRefund({
      signer: burner.account,
      to: DEST,
      chainIds: [31337, 31338],
      deadline: 1_900_000_000,
    });
    expect(standing.to).toBe(DEST);
    expect(Object.keys(standing.signatures)).toEqual(["31337", "31338"]);
    expect(standing.signatures["31337"]).not.toBe(standing.signatures["31338"]);
    for (const chainId of [31337, 31338]) {
      const typed = standingRefundTypedData(chainId, burner.address, { to: DEST, deadline: 1_900_000_000n });
      const signature = standing.signatures[String(chainId)] as `0x${string}`;
      expect(await recoverTypedDataAddress({ ...typed, signature })).toBe(burner.address);
    }
    await expect(
      signStandingRefund({ signer: burner.account, to: DEST, chainIds: [] }),
    ).rejects.toMatchObject({
      code: "config_error",
    });
  });
});
