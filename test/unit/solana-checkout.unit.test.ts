import { Keypair } from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { parseSolanaAddress } from "../../src/chains/solana/config.ts";
import { buildSolanaSweep, checkSolanaSweep, NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import type { CommandMetadata, CreateSession, SessionInput } from "../../src/domain/index.ts";
import { owedLegs } from "../../src/domain/solana-sweep.ts";
import type { SolanaPort } from "../../src/gateway/ports.ts";
import { testGateway } from "../support/memory-gateway.ts";
import {
  SOLANA_CHAIN_ID as SOLANA,
  sessionRun,
  solanaDeposit,
  solanaSessionCreated,
} from "../support/session-run.ts";

// A merchant's checkout on Solana (docs/SOLANA.md, "Merchant checkout on Solana"): its sweep pays the
// app fee to the session's app_fee_recipient_sol; a session with a fee and no Solana sink is refused
// when it is created (and, one made before the rule, when its sweep is committed); a session priced in
// USDC is not swept when SOL arrived.

const ID = "4a1c2e3f-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BURNER = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const DEST = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";
const SINK = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
const RELAYER = "8GkMLnHeXf2xbC9Xh3n7DqjTyP2YzVbW5rA1sE6uQ4tK";
const VAULT = "3nT1pZmvm4uDcX1ZrGxUq1pb9vjH7VnF5WyB8cKXKkqv";
const T0 = Date.UTC(2026, 10, 27, 16, 0, 0);
const meta = (commandId: string): CommandMetadata => ({ commandId, issuedAt: T0, replyTo: null });

/** A Solana checkout of the merchant's, paying DEST on the Solana chain, 150 bps app fee to SINK. */
const create = (over: Partial<CreateSession["data"]> = {}): CreateSession =>
  solanaSessionCreated(
    {
      sessionId: ID,
      destAddress: DEST,
      flow: "checkout",
      merchantId: "mer_sol",
      appFeeBps: 150,
      appFeeRecipient: "0x00000000000000000000000000000000000000fe",
      appFeeRecipientSol: SINK,
      expectedAmount: 10_000_000n,
      clientSecretHash: "ab".repeat(32),
      ...over,
    },
    meta("create"),
  );

const outcome = (...inputs: SessionInput[]) => {
  const run = sessionRun();
  for (const input of inputs) run.send(input);
  return { code: run.rejection() ?? "accepted", state: run.stateOrNull };
};

describe("creating a Solana-origin session with an app fee", () => {
  it("with a Solana sink: created, the sink on the session", () => {
    const { code, state } = outcome(create());
    expect(code).toBe("accepted");
    expect(state).toMatchObject({ appFeeBps: 150, appFeeRecipientSol: SINK, originChainId: SOLANA });
  });

  it("without one: refused app_fee_sink_missing, nothing recorded", () => {
    expect(outcome(create({ appFeeRecipientSol: null }))).toEqual({
      code: "app_fee_sink_missing",
      state: null,
    });
  });

  it("no fee needs no sink; an EVM session never needs one", () => {
    expect(outcome(create({ appFeeBps: 0, appFeeRecipientSol: null })).code).toBe("accepted");
    const evm = create({
      originChainId: null,
      appFeeRecipientSol: null,
      destAddress: null,
      destChainId: null,
    });
    expect(outcome(evm).code).toBe("accepted");
  });
});

describe("the sweep a Solana session with an app fee owes", () => {
  const owed = (destChainId: number) =>
    owedLegs(
      { appFeeBps: 150, appFeeRecipientSol: SINK, destAddress: DEST, destChainId, originChainId: SOLANA },
      { amount: 10_000_001n, feeBps: 80, feeRecipient: RELAYER, vault: VAULT },
    );

  it("pays the delivery, the platform fee to the relayer and the app fee to app_fee_recipient_sol, rounding the fees down", () => {
    expect(owed(SOLANA)).toEqual({
      legs: [
        { to: DEST, amount: 9_770_001n },
        { to: RELAYER, amount: 80_000n },
        { to: SINK, amount: 150_000n },
      ],
      feeAmount: 80_000n,
      appFeeAmount: 150_000n,
      delivered: 9_770_001n,
      bridged: false,
    });
  });

  it("for an EVM destination the delivery goes to the vault; the app fee still goes to the Solana sink", () => {
    expect(owed(31338).legs).toEqual([
      { to: VAULT, amount: 9_770_001n },
      { to: RELAYER, amount: 80_000n },
      { to: SINK, amount: 150_000n },
    ]);
  });

  it("a session recorded with a fee and no sink (before the creation rule) is refused its sweep: app_fee_sink_missing", () => {
    const run = sessionRun();
    // The fold of an older session: its creation was accepted then, so the event is applied directly.
    const { sessionId: _, pinnedOnly: __, ...data } = create({ appFeeRecipientSol: null }).data;
    run.fold({
      type: "SessionCreated",
      data,
      metadata: { sessionId: ID, version: 1, occurredAt: T0, commandId: "create" },
    });
    run.send({
      type: "RegisterBurner",
      data: { sessionId: ID, burner: BURNER, auth: null, standingRefund: null, bounceSetup: null },
      metadata: meta("register"),
    });
    run.send(solanaDeposit(ID, { token: MINT, amount: 10_000_000n }, "finalized", meta("deposit")));
    expect(run.state.status).toBe("detected");
    run.send({
      type: "CommitSolanaSweep",
      data: {
        sessionId: ID,
        transaction: "AQ==",
        burner: BURNER,
        token: MINT,
        legs: [
          { to: DEST, amount: 9_770_000n },
          { to: RELAYER, amount: 80_000n },
        ],
        feeBps: 80,
        feeRecipient: RELAYER,
        vault: VAULT,
      },
      metadata: meta("commit"),
    });
    expect(run.rejection()).toBe("app_fee_sink_missing");
  });
});

/** The gateway's Solana side with the service's relayer and vault; no signature verifies, no RPC answers. */
const solanaPort = (over: Partial<SolanaPort> = {}): SolanaPort => ({
  chainId: SOLANA,
  feePayer: RELAYER,
  vault: VAULT,
  usdcMint: MINT,
  reaches: [31337],
  parseAddress: parseSolanaAddress,
  verifyMessage: () => false,
  checkBounceSetup: () => Promise.reject(new Error("not used")),
  burnerSignature: () => null,
  checkRefund: () => Promise.reject(new Error("not used")),
  latestBlockhash: () => Promise.reject(new Error("not used")),
  checkSweep: () => Promise.reject(new Error("not used")),
  ...over,
});

describe("the gateway's commit of a Solana session priced in USDC", () => {
  // A session with an expected amount (a checkout's) that received SOL: nothing swaps on Solana, so
  // its lamports would be held against a USDC amount. The session core refuses the sweep: nothing is recorded or relayed.
  const burner = Keypair.generate();
  const port = solanaPort({
    checkSweep: async (transaction, expected) => {
      const checked = checkSolanaSweep(transaction, { ...expected, feePayer: RELAYER });
      return checked.ok ? { ok: true } : checked;
    },
  });

  it("refuses a SOL sweep 409 checkout_token_unsupported", async () => {
    const gw = await testGateway({}, { solana: port });
    try {
      // Open (no merchant, so no checkout guard) but with a checkout's USDC amount and app fee.
      await gw.service.commands.send(
        create({ flow: "p2p_request", merchantId: null, burner: burner.publicKey.toBase58() }),
      );
      await gw.service.commands.send(
        solanaDeposit(
          ID,
          { token: NATIVE_MINT, amount: 10_000_000n, logIndex: -1 },
          "finalized",
          meta("sol"),
        ),
      );
      const tx = buildSolanaSweep({
        burner: burner.publicKey.toBase58(),
        feePayer: RELAYER,
        token: NATIVE_MINT,
        legs: [
          { to: DEST, amount: 9_770_000n },
          { to: RELAYER, amount: 80_000n },
          { to: SINK, amount: 150_000n },
        ],
        blockhash: RELAYER,
      });
      tx.partialSign(burner);
      const transaction = tx.serialize({ requireAllSignatures: false }).toString("base64");
      const before = await gw.service.sessions.get(ID);
      const res = await gw.app.inject({
        method: "POST",
        url: `/sessions/${ID}/commit`,
        payload: { transaction },
      });
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toMatch(/priced in USDC/);
      // The session core refused it (src/domain/value.ts): nothing recorded, nothing sent to relay.
      expect(gw.service.sent.at(-1)?.type).toBe("CommitSolanaSweep");
      expect(await gw.service.sessions.get(ID)).toEqual(before);
    } finally {
      await gw.app.close();
    }
  });
});

describe("the gateway's burner registration on a Solana session with an app fee", () => {
  it("refuses the session's app fee sink as the burner: 400 burner_is_service_address, nothing sent", async () => {
    // Signatures never verify here: a refusal that names the service's addresses came first.
    const gw = await testGateway({}, { solana: solanaPort() });
    try {
      // Open (no merchant, so no checkout guard) but carrying a checkout's app fee sink.
      await gw.service.commands.send(create({ flow: "p2p_request", merchantId: null }));
      const before = gw.service.sent.length;
      const register = (burner: string) =>
        gw.app.inject({
          method: "POST",
          url: `/sessions/${ID}/solana-burner`,
          payload: { burner_address: burner, signature: "1".repeat(64) },
        });
      const sink = await register(SINK);
      expect([sink.statusCode, sink.json().error]).toEqual([400, expect.stringMatching(/service's own/)]);
      // Another key is refused for its signature only.
      const other = await register(BURNER);
      expect([other.statusCode, other.json().error]).toEqual([400, expect.stringMatching(/ed25519/)]);
      expect(gw.service.sent.length).toBe(before);
    } finally {
      await gw.app.close();
    }
  });
});
