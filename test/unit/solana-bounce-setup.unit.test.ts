import {
  createApproveInstruction,
  createAssociatedTokenAccountIdempotentInstruction,
} from "@solana/spl-token";
import { Keypair, PublicKey, SystemProgram, type Transaction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  BOUNCE_ALLOWANCE,
  bounceStatement,
  buildBounceSetup,
  burnerTokenAccount,
  checkBounceSetup,
  parseBounceStatement,
} from "../../src/chains/solana/bounce-setup.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { signSolanaBounceSetup } from "../../src/client/actions/sign-solana-bounce-setup.ts";
import { ClientError } from "../../src/client/errors.ts";

const sessionId = "0b6d3f0e-2a41-4c1f-9d3a-5d0c2b7f1e11";
const burner = makeSolanaBurner();
const relayer = Keypair.generate().publicKey;
const mint = Keypair.generate().publicKey;
const wallet = Keypair.generate().publicKey;
const blockhash = Keypair.generate().publicKey.toBase58();
const expected = { sessionId, burner: burner.keypair.publicKey, relayer, mint };

const signed = (overrides: { refundTo?: string; sessionId?: string; relayer?: string } = {}) =>
  signSolanaBounceSetup({
    sessionId: overrides.sessionId ?? sessionId,
    burner: burner.keypair,
    refundTo: overrides.refundTo ?? wallet.toBase58(),
    relayer: overrides.relayer ?? relayer.toBase58(),
    mint: mint.toBase58(),
    blockhash,
  });

/** A setup rebuilt by hand, changed by `change`, signed by the burner: what a tampering client sends. */
function tampered(change: (tx: Transaction) => void): string {
  const tx = buildBounceSetup({ ...expected, refundTo: wallet, blockhash });
  change(tx);
  tx.partialSign(burner.keypair);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
}

const reason = (wire: string) => {
  const r = checkBounceSetup(wire, expected);
  return r.ok ? "accepted" : r.reason;
};

describe("the refund-address statement", () => {
  it("names the session and the refund address, and parses back", () => {
    const text = bounceStatement(sessionId, wallet.toBase58());
    expect(text).toBe(`deposit-settlement bounce v1 session=${sessionId} refund_to=${wallet.toBase58()}`);
    expect(parseBounceStatement(text)).toEqual({ sessionId, refundTo: wallet.toBase58() });
    expect(parseBounceStatement(`${text} `)).toBeNull();
    expect(parseBounceStatement(text.replace("v1", "v2"))).toBeNull();
  });
});

describe("the service's check of a bounce setup", () => {
  it("accepts the client's setup and reads its refund address", () => {
    const r = checkBounceSetup(signed(), expected);
    expect(r.ok && r.refundTo).toBe(wallet.toBase58());
    if (!r.ok) return;
    // Three instructions: the statement, the approval and the close authority. No account is opened.
    const { message } = r.transaction;
    const programs = message.compiledInstructions.map((i) => message.staticAccountKeys[i.programIdIndex]);
    expect(programs.map((p) => p?.toBase58())).toEqual([
      "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
      "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
    ]);
    expect(message.staticAccountKeys[0]?.equals(relayer)).toBe(true);
  });

  it("refuses a statement for another session", () => {
    expect(reason(signed({ sessionId: "1b6d3f0e-2a41-4c1f-9d3a-5d0c2b7f1e11" }))).toMatch(/this session/);
  });

  it("refuses a delegate other than the relayer", () => {
    expect(reason(signed({ relayer: Keypair.generate().publicKey.toBase58() }))).toMatch(
      /not the bounce setup/,
    );
  });

  it("refuses an extra instruction the relayer would pay for", () => {
    const wire = tampered((tx) =>
      tx.add(SystemProgram.transfer({ fromPubkey: relayer, toPubkey: wallet, lamports: 1_000_000 })),
    );
    expect(reason(wire)).toMatch(/not the bounce setup/);
  });

  it("refuses the burner's account opened at the relayer's cost (the setup's first form)", () => {
    const account = burnerTokenAccount(burner.keypair.publicKey, mint);
    const opens = createAssociatedTokenAccountIdempotentInstruction(
      relayer,
      account,
      burner.keypair.publicKey,
      mint,
    );
    expect(reason(tampered((tx) => void tx.instructions.splice(1, 0, opens)))).toMatch(
      /not the bounce setup/,
    );
  });

  it("refuses a smaller allowance and another fee payer", () => {
    const small = tampered((tx) => {
      const account = burnerTokenAccount(burner.keypair.publicKey, mint);
      tx.instructions[1] = createApproveInstruction(
        account,
        relayer,
        burner.keypair.publicKey,
        BOUNCE_ALLOWANCE - 1n,
      );
    });
    expect(reason(small)).toMatch(/not the bounce setup/);
    const payer = tampered((tx) => {
      tx.feePayer = burner.keypair.publicKey;
    });
    expect(reason(payer)).toMatch(/not the bounce setup/);
  });

  it("refuses a setup without the burner's valid signature", () => {
    const unsigned = buildBounceSetup({ ...expected, refundTo: wallet, blockhash })
      .serialize({ requireAllSignatures: false, verifySignatures: false })
      .toString("base64");
    expect(reason(unsigned)).toMatch(/signature/);
    const bytes = Buffer.from(signed(), "base64");
    // The wire form: a signature count, then 64-byte signatures (the relayer's slot first, then the burner's).
    const last = 1 + 64 * 2 - 1;
    bytes[last] = (bytes[last] ?? 0) ^ 0xff;
    expect(reason(bytes.toString("base64"))).toMatch(/signature/);
  });

  it("refuses refund addresses a bounce must not go to, and bytes that are not a transaction", () => {
    const offCurve = PublicKey.findProgramAddressSync([Buffer.from("x")], mint)[0];
    expect(reason(tampered((tx) => void tx.instructions.splice(0, 1)))).toMatch(/memo/);
    const toBurner = buildBounceSetup({ ...expected, refundTo: burner.keypair.publicKey, blockhash });
    toBurner.partialSign(burner.keypair);
    expect(reason(toBurner.serialize({ requireAllSignatures: false }).toString("base64"))).toMatch(/burner/);
    const toPda = buildBounceSetup({ ...expected, refundTo: offCurve, blockhash });
    toPda.partialSign(burner.keypair);
    expect(reason(toPda.serialize({ requireAllSignatures: false }).toString("base64"))).toMatch(/wallet/);
    expect(reason("bm90IGEgdHJhbnNhY3Rpb24=")).toMatch(/not a serialized/);
  });
});

describe("the client's Solana burner actions", () => {
  it("makeSolanaBurner restores the same burner from its secret key", () => {
    const again = makeSolanaBurner({ secretKey: burner.keypair.secretKey });
    expect(again.address).toBe(burner.address);
    expect(makeSolanaBurner().address).not.toBe(burner.address);
  });

  it("signSolanaBounceSetup refuses, before signing, a refund address that is not a wallet", () => {
    const offCurve = PublicKey.findProgramAddressSync([Buffer.from("x")], mint)[0].toBase58();
    const codeOf = (refundTo: string) => {
      try {
        signed({ refundTo });
        return "signed";
      } catch (e) {
        return e instanceof ClientError ? e.code : String(e);
      }
    };
    expect(["not-base58!", offCurve, burner.address].map(codeOf)).toEqual([
      "config_error",
      "config_error",
      "config_error",
    ]);
  });
});
