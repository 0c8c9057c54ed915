import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, SystemProgram, type Transaction } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import {
  buildSolanaSweep,
  checkSolanaSweep,
  NATIVE_MINT,
  type SweepParams,
} from "../../src/chains/solana/sweep.ts";
import type { SessionInput } from "../../src/domain/commands.ts";
import type { decide } from "../../src/domain/decide.ts";
import { settleCommandId } from "../../src/domain/settlement.ts";
import { owedLegs } from "../../src/domain/solana-sweep.ts";
import { SOLANA_CHAIN_ID, sessionRun, solanaDeposit, solanaSessionCreated } from "../support/session-run.ts";

// The sweep a Solana burner signs: the service's byte-for-byte check of it (pure: web3.js and
// spl-token, no node), and the session core's judgement of its legs against what the session owes.

const burner = Keypair.generate();
const relayer = Keypair.generate();
const destination = Keypair.generate().publicKey.toBase58();
const stranger = Keypair.generate().publicKey.toBase58();
const MINT = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";

const params: Omit<SweepParams, "blockhash"> = {
  burner: burner.publicKey.toBase58(),
  feePayer: relayer.publicKey.toBase58(),
  token: MINT,
  legs: [
    { to: destination, amount: 9_920_000n },
    { to: relayer.publicKey.toBase58(), amount: 80_000n },
  ],
};

/** What the payer's client sends: the sweep signed by the burner alone, base64. */
const signed = (tx: Transaction, signer = burner): string => {
  tx.partialSign(signer);
  return tx.serialize({ requireAllSignatures: false }).toString("base64");
};
const sweep = (over: Partial<SweepParams> = {}) =>
  buildSolanaSweep({ ...params, blockhash: BLOCKHASH, ...over });

describe("checkSolanaSweep", () => {
  it("accepts the sweep the session owes, signed by its burner (USDC and SOL)", () => {
    expect(checkSolanaSweep(signed(sweep()), params).ok).toBe(true);
    const sol = { ...params, token: NATIVE_MINT };
    expect(checkSolanaSweep(signed(sweep({ token: NATIVE_MINT })), sol).ok).toBe(true);
  });

  it.each([
    ["signed for another destination", { legs: [{ to: stranger, amount: 9_920_000n }, params.legs[1]] }],
    ["a changed amount", { legs: [{ to: destination, amount: 10_000_000n }] }],
    ["the fee taken by someone else", { legs: [params.legs[0], { to: stranger, amount: 80_000n }] }],
    ["another fee payer", { feePayer: stranger }],
    ["another token", { token: NATIVE_MINT }],
  ] as const)("refuses a sweep with %s", (_what, over) => {
    const res = checkSolanaSweep(signed(sweep(over as Partial<SweepParams>)), params);
    expect(res).toEqual({ ok: false, reason: expect.stringMatching(/not the sweep this session owes/) });
  });

  it("refuses an extra instruction the fee payer would pay for, or one more transfer", () => {
    const withSystem = sweep();
    withSystem.add(
      SystemProgram.transfer({ fromPubkey: relayer.publicKey, toPubkey: burner.publicKey, lamports: 1n }),
    );
    expect(checkSolanaSweep(signed(withSystem), params).ok).toBe(false);
    const mint = Keypair.generate().publicKey;
    const extra = sweep();
    extra.add(
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(mint, burner.publicKey),
        mint,
        getAssociatedTokenAddressSync(mint, relayer.publicKey),
        burner.publicKey,
        1n,
        6,
      ),
    );
    expect(checkSolanaSweep(signed(extra), params).ok).toBe(false);
  });

  it("refuses a sweep the burner did not sign, a bad signature and what is no transaction", () => {
    const unsigned = sweep().serialize({ requireAllSignatures: false, verifySignatures: false });
    expect(checkSolanaSweep(unsigned.toString("base64"), params)).toMatchObject({
      reason: expect.stringMatching(/burner's signature/),
    });
    const tampered = Buffer.from(signed(sweep()), "base64");
    tampered[70] = (tampered[70] ?? 0) ^ 1; // inside the burner's signature
    expect(checkSolanaSweep(tampered.toString("base64"), params).ok).toBe(false);
    expect(checkSolanaSweep("AAAA", params).ok).toBe(false);
    expect(checkSolanaSweep("not base64!", params).ok).toBe(false);
  });
});

describe("the session core's judgement of a Solana sweep", () => {
  const SOLANA = SOLANA_CHAIN_ID;
  const ID = "5d7c1f0e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";
  const vault = Keypair.generate().publicKey.toBase58();
  let n = 0;
  const meta = () => ({ commandId: `c${++n}`, issuedAt: 1_800_000_000_000 + n, replyTo: null });
  const create = solanaSessionCreated(
    { sessionId: ID, burner: params.burner, destAddress: destination },
    meta(),
  );
  const deposit = (finality: "confirmed" | "finalized") =>
    solanaDeposit(
      ID,
      { token: MINT, amount: 10_000_000n, blockHash: BLOCKHASH, from: stranger },
      finality,
      meta(),
    );
  const commit = (legs = params.legs): SessionInput => ({
    type: "CommitSolanaSweep",
    data: {
      sessionId: ID,
      transaction: signed(sweep({ legs })),
      burner: params.burner,
      token: MINT,
      legs: [...legs],
      feeBps: 80,
      feeRecipient: params.feePayer,
      vault,
    },
    metadata: meta(),
  });
  /** Every input but the last is accepted (else it throws); the state after all, and the last's decision. */
  const run = (...inputs: SessionInput[]) => {
    const r = sessionRun(...inputs.slice(0, -1));
    r.send(inputs.at(-1) as SessionInput);
    return { state: r.stateOrNull, last: r.last };
  };
  const relays = (d: ReturnType<typeof decide>) =>
    d.outbox.filter((m) => m.type === "Executor" && m.data.commandId === settleCommandId(ID));

  it("owes the detected amount: delivery, platform fee and app fee; the vault for an EVM destination", () => {
    const session = { ...create.data, destChainId: SOLANA } as never;
    const owed = owedLegs(session, { amount: 10_000_000n, feeBps: 80, feeRecipient: params.feePayer, vault });
    expect(owed.legs).toEqual(params.legs);
    const evm = owedLegs({ ...(create.data as object), destChainId: 31338 } as never, {
      amount: 10_000_000n,
      feeBps: 80,
      feeRecipient: params.feePayer,
      vault,
    });
    expect(evm).toMatchObject({ bridged: true, legs: [{ to: vault, amount: 9_920_000n }, params.legs[1]] });
  });

  it("relays a sweep committed on a final deposit at once, with its amounts", () => {
    const { state, last } = run(create, deposit("finalized"), commit());
    expect(last.ok).toBe(true);
    expect(state?.solanaSweep).toMatchObject({
      feeAmount: 80_000n,
      deliveredAmount: 9_920_000n,
      bridged: false,
    });
    expect(relays(last)).toHaveLength(1);
  });

  it("holds a sweep committed before the deposit is final, and relays it when it is", () => {
    const held = run(create, deposit("confirmed"), commit());
    expect(held.last.ok).toBe(true);
    expect(relays(held.last)).toHaveLength(0);
    const final = run(create, deposit("confirmed"), commit(), deposit("finalized"));
    expect(final.last.ok && final.last.events.map((e) => e.type)).toEqual(["DepositFinalized"]);
    expect(relays(final.last)).toHaveLength(1);
  });

  // A reorg drops a deposit that was only confirmed, after the sweep was committed (issue 27 item 9).
  const retractOf = (t: { txHash: string; logIndex: number; blockHash: string }): SessionInput => ({
    type: "RetractTransfer",
    data: { sessionId: ID, chainId: SOLANA, txHash: t.txHash, logIndex: t.logIndex, blockHash: t.blockHash },
    metadata: meta(),
  });
  const sol = (finality: "confirmed" | "finalized") =>
    solanaDeposit(
      ID,
      {
        token: "So11111111111111111111111111111111111111112",
        amount: 5_000_000n,
        txHash: "2ZE7Rz9dZ8cWfvXzRkPzPoWsbV4yGfRnM8s5QkXDHKuGQqsyVw9w4tGq2HJ1Qy6Abd4T5g8fPvE1e7Kq9mJzXy1A",
        logIndex: -1,
        blockHash: BLOCKHASH,
        from: stranger,
      },
      finality,
      meta(),
    );

  it("relays a held sweep once a retraction leaves every deposit final and the sweep still owed", () => {
    // The USDC deposit is final and swept; a SOL deposit still confirmed holds the relay. Dropped, nothing waits.
    const r = sessionRun(create, deposit("finalized"), sol("confirmed"), commit());
    expect(r.state.solanaSweep).not.toBeNull();
    r.send(retractOf(sol("confirmed").data.transfer));
    expect(r.events()).toEqual(["DepositRetracted"]);
    expect(relays(r.last)).toHaveLength(1);
    expect(r.state.status).toBe("detected");
  });

  it("fails a held sweep whose deposit a retraction dropped: never stuck neither settling nor expiring", () => {
    const r = sessionRun(create, deposit("confirmed"), commit());
    r.send(retractOf(deposit("confirmed").data.transfer));
    expect(r.events()).toEqual(["DepositRetracted", "SettlementFailed"]);
    expect(relays(r.last)).toHaveLength(0);
    expect(r.state.status).toBe("failed");
    expect(r.state.errorMessage).toMatch(/dropped by a reorg/);
  });

  it("refuses legs that are not what the session owes, and a second sweep", () => {
    const other = run(create, deposit("finalized"), commit([{ to: stranger, amount: 10_000_000n }]));
    expect(other.last.ok ? null : other.last.rejection.code).toBe("intent_mismatch");
    expect(other.state?.solanaSweep).toBeNull();
    const twice = run(
      create,
      deposit("finalized"),
      commit(),
      commit([{ to: destination, amount: 10_000_000n }]),
    );
    expect(twice.last.ok ? null : twice.last.rejection.code).toBe("already_committed");
  });
});
