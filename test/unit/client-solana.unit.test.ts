import { Keypair } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { solanaBurnerMessage, solanaSessionMessage } from "../../src/api/solana.ts";
import { verifyEd25519 } from "../../src/chains/solana/gateway-side.ts";
import { checkSolanaSweep, NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { signSolanaRegistration } from "../../src/client/actions/sign-solana-registration.ts";
import { signSolanaSession } from "../../src/client/actions/sign-solana-session.ts";
import {
  type SignSolanaSweepParameters,
  signSolanaSweep,
} from "../../src/client/actions/sign-solana-sweep.ts";
import type { DetectedSolanaSession } from "../../src/client/actions/wait-for-solana-detection.ts";
import type { SolanaSweepTerms } from "../../src/client/types.ts";
import { owedLegs } from "../../src/domain/solana-sweep.ts";

// The payer's Solana actions that sign, run against the service's own checks: the sweep a payer
// builds is the one the gateway's checker (checkSolanaSweep, with the legs the commit route derives
// through owedLegs) accepts, and the registration signature is one the gateway's verifier accepts.
// What the library refuses to sign is refused before anything is signed.

const CHAIN = 792703810;
const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const burner = makeSolanaBurner();
const relayer = Keypair.generate().publicKey.toBase58();
const vault = Keypair.generate().publicKey.toBase58();
const dest = Keypair.generate().publicKey.toBase58();
const appSink = Keypair.generate().publicKey.toBase58();
const MINT = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";

const terms = (over: Partial<SolanaSweepTerms> = {}): SolanaSweepTerms => ({
  chain_id: CHAIN,
  usdc_mint: MINT,
  fee_payer: relayer,
  fee_bps: 80,
  app_fee_bps: 0,
  app_fee_recipient_sol: null,
  sweep_to: dest,
  open_sweep_to: false,
  ...over,
});

const detected = (over: Partial<DetectedSolanaSession> = {}) =>
  ({
    id: ID,
    status: "detected",
    burner_address: burner.address,
    source_chain_id: CHAIN,
    detected_token: MINT,
    detected_amount: "10000000",
    detected_tx: "5".repeat(88),
    dest_address: dest,
    dest_chain_id: CHAIN,
    app_fee_bps: 0,
    app_fee_recipient_sol: null,
    ...over,
  }) as DetectedSolanaSession;

const sign = (over: Partial<SignSolanaSweepParameters> = {}) =>
  signSolanaSweep({
    burner: burner.keypair,
    session: detected(),
    terms: terms(),
    blockhash: BLOCKHASH,
    ...over,
  });

/** The gateway's check of a commit: the legs the route derives from the session (owedLegs), then checkSolanaSweep. */
function serviceAccepts(transaction: string, s: DetectedSolanaSession, t: SolanaSweepTerms) {
  const { legs } = owedLegs(
    {
      appFeeBps: s.app_fee_bps,
      appFeeRecipientSol: s.app_fee_recipient_sol,
      destAddress: s.dest_address,
      destChainId: s.dest_chain_id,
      originChainId: CHAIN,
    },
    { amount: BigInt(s.detected_amount), feeBps: t.fee_bps, feeRecipient: t.fee_payer, vault },
  );
  return checkSolanaSweep(transaction, {
    burner: burner.address,
    feePayer: t.fee_payer,
    token: s.detected_token,
    legs,
  });
}

describe("signSolanaSweep: the sweep the service accepts", () => {
  it("USDC to a Solana destination: delivery and platform fee, accepted by the gateway's checker", () => {
    const out = sign();
    expect(out.legs).toEqual([
      { to: dest, amount: 9_920_000n },
      { to: relayer, amount: 80_000n },
    ]);
    expect(serviceAccepts(out.transaction, detected(), terms()).ok).toBe(true);
  });

  it("SOL: System transfers of the detected lamports, accepted", () => {
    const s = detected({ detected_token: NATIVE_MINT, detected_amount: "50000000" });
    const out = sign({ session: s });
    expect(out.token).toBe(NATIVE_MINT);
    expect(serviceAccepts(out.transaction, s, terms()).ok).toBe(true);
  });

  it("an EVM destination: the delivery goes to the vault (fast fill), accepted", () => {
    const evm = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
    const s = detected({ dest_address: evm, dest_chain_id: 31338 });
    const t = terms({ sweep_to: vault });
    const out = sign({
      session: s,
      terms: t,
      destination: { address: evm.toUpperCase().replace("0X", "0x"), chainId: 31338 },
    });
    expect(out.legs[0]).toEqual({ to: vault, amount: 9_920_000n });
    expect(serviceAccepts(out.transaction, s, t).ok).toBe(true);
  });

  it("an app fee within the payer's bound: a third leg to app_fee_recipient_sol, accepted", () => {
    const s = detected({ app_fee_bps: 50, app_fee_recipient_sol: appSink });
    const out = sign({ session: s, maxAppFeeBps: 50 });
    expect(out.legs).toEqual([
      { to: dest, amount: 9_870_000n },
      { to: relayer, amount: 80_000n },
      { to: appSink, amount: 50_000n },
    ]);
    expect(serviceAccepts(out.transaction, s, terms()).ok).toBe(true);
  });

  it("the checker would refuse it for a session owing something else (the check can fail)", () => {
    const out = sign();
    expect(serviceAccepts(out.transaction, detected({ detected_amount: "10000001" }), terms()).ok).toBe(
      false,
    );
    expect(serviceAccepts(out.transaction, detected(), terms({ fee_bps: 100 })).ok).toBe(false);
  });
});

describe("signSolanaSweep: what the payer does not sign", () => {
  const other = Keypair.generate().publicKey.toBase58();
  it.each([
    ["another burner's session", { session: detected({ burner_address: other }) }, /not this key/],
    ["a session not detected", { session: detected({ status: "sweeping" }) }, /sweeping, not detected/],
    ["a deposit on another chain", { session: detected({ source_chain_id: 31337 }) }, /on chain 31337/],
    [
      "a token neither USDC nor SOL",
      { session: detected({ detected_token: other }) },
      /neither USDC nor SOL/,
    ],
    ["another destination than asked", { destination: { address: other, chainId: CHAIN } }, /it pays/],
    [
      "a sweep to someone else than the Solana destination",
      { terms: terms({ sweep_to: other }) },
      /not to the destination/,
    ],
    ["a platform fee above 1%", { terms: terms({ fee_bps: 101 }) }, /101 bps is above the 100/],
    [
      "a platform fee above the payer's bound",
      { terms: terms({ fee_bps: 80 }), maxFeeBps: 50 },
      /above the 50/,
    ],
    [
      "an app fee on an anonymous bound of 0",
      { session: detected({ app_fee_bps: 10, app_fee_recipient_sol: appSink }) },
      /app fee of 10 bps/,
    ],
    [
      "an app fee with no Solana recipient",
      { session: detected({ app_fee_bps: 10 }), maxAppFeeBps: 10 },
      /no Solana recipient/,
    ],
  ] as const)("refuses %s: verification_failed", (_what, over, why) => {
    expect(() => sign(over as Partial<SignSolanaSweepParameters>)).toThrow(
      expect.objectContaining({ code: "verification_failed", message: expect.stringMatching(why) }),
    );
  });
});

describe("signSolanaRegistration", () => {
  it("is the burner's ed25519 signature the gateway verifies, for this session only", async () => {
    const signature = await signSolanaRegistration({ sessionId: ID, burner: burner.keypair });
    expect(verifyEd25519(burner.address, solanaBurnerMessage(ID), signature)).toBe(true);
    const otherSession = "1f8fad5b-d9cb-469f-a165-70867728950e";
    expect(verifyEd25519(burner.address, solanaBurnerMessage(otherSession), signature)).toBe(false);
    const stranger = makeSolanaBurner();
    expect(verifyEd25519(stranger.address, solanaBurnerMessage(ID), signature)).toBe(false);
  });
});

describe("signSolanaSession", () => {
  it("is the burner's ed25519 signature of the creation message the gateway verifies, for this body only", async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const asked = { destination_address: dest, destination_chain: CHAIN, refund_address: wallet };
    const signature = await signSolanaSession({
      burner: burner.keypair,
      destination: { address: dest, chainId: CHAIN },
      refundAddress: wallet,
    });
    expect(verifyEd25519(burner.address, solanaSessionMessage(asked), signature)).toBe(true);
    const elsewhere = { ...asked, destination_address: appSink };
    expect(verifyEd25519(burner.address, solanaSessionMessage(elsewhere), signature)).toBe(false);
    const { refund_address: _, ...noRefund } = asked;
    expect(verifyEd25519(burner.address, solanaSessionMessage(noRefund), signature)).toBe(false);
    expect(verifyEd25519(makeSolanaBurner().address, solanaSessionMessage(asked), signature)).toBe(false);
  });
});
