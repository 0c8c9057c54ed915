import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { solanaBurnerMessage, solanaSessionMessage } from "../../src/api/solana.ts";
import { checkBounceSetup } from "../../src/chains/solana/bounce-setup.ts";
import { parseSolanaAddress } from "../../src/chains/solana/config.ts";
import { verifyEd25519 } from "../../src/chains/solana/gateway-side.ts";
import { checkSolanaRefund } from "../../src/chains/solana/refund.ts";
import { buildSolanaSweep, checkSolanaSweep } from "../../src/chains/solana/sweep.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { signSolanaBounceSetup } from "../../src/client/actions/sign-solana-bounce-setup.ts";
import type { SessionInput } from "../../src/domain/commands.ts";
import { type Authorization, NATIVE_TOKEN, type SessionState } from "../../src/domain/types.ts";
import { ChainUnavailableError, type SolanaPort } from "../../src/gateway/ports.ts";
import { signedSessionBody, testGateway } from "../support/memory-gateway.ts";
import { testDecide as decide } from "../support/money.ts";
import { SOLANA_CHAIN_ID, sessionRun, solanaDeposit, solanaSessionCreated } from "../support/session-run.ts";

// The Solana routes over the in-memory owner (the real session core) and a Solana port whose key
// and signature checks are the real ones; only the RPC read is a stand-in (answering or failing).

const SOLANA = SOLANA_CHAIN_ID;
const EVM = 31337;
const base58 = getBase58Decoder();

/** An ed25519 keypair as a Solana client has it: its base58 public key and a signer. */
function solanaKey() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  return {
    address: new PublicKey(raw).toBase58(),
    sign: (message: Uint8Array) => base58.decode(sign(null, message, privateKey)),
  };
}

/** A web3.js keypair's ed25519 signer (Node's crypto, from its seed). */
function signerOf(keypair: Keypair) {
  const jwk = {
    kty: "OKP",
    crv: "Ed25519",
    d: Buffer.from(keypair.secretKey.subarray(0, 32)).toString("base64url"),
    x: Buffer.from(keypair.publicKey.toBytes()).toString("base64url"),
  };
  const key = createPrivateKey({ key: jwk, format: "jwk" });
  return (message: Uint8Array) => base58.decode(sign(null, message, key));
}

const feePayerKey = solanaKey();
const vaultKey = solanaKey();
const feePayer = feePayerKey.address;
const vault = vaultKey.address;
const destination = solanaKey().address;
const USDC_MINT = solanaKey().address;

let rpcUp = true;
/** A blockhash the chain no longer takes. */
const EXPIRED_BLOCKHASH = "9sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const port: SolanaPort = {
  chainId: SOLANA,
  feePayer,
  vault,
  usdcMint: USDC_MINT,
  // The test gateway's EVM chain: where this chain's USDC is delivered (the fast fill).
  reaches: [EVM],
  parseAddress: parseSolanaAddress,
  verifyMessage: verifyEd25519,
  // The byte-for-byte check is the real one; the chain's answer on the blockhash is this test's.
  async checkBounceSetup(wire, expected) {
    const checked = checkBounceSetup(wire, {
      sessionId: expected.sessionId,
      burner: new PublicKey(expected.burner),
      relayer: new PublicKey(feePayer),
      mint: new PublicKey(USDC_MINT),
    });
    if (!checked.ok) return checked;
    if (!rpcUp) throw new ChainUnavailableError("chain 792703810's RPC did not answer: ECONNREFUSED");
    return checked.transaction.message.recentBlockhash === EXPIRED_BLOCKHASH
      ? { ok: false, reason: "its blockhash expired: sign it again with one from GET /solana/blockhash" }
      : { ok: true, refundTo: checked.refundTo };
  },
  async latestBlockhash() {
    if (!rpcUp) throw new ChainUnavailableError("chain 792703810's RPC did not answer: ECONNREFUSED");
    return { blockhash: "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn", lastValidBlockHeight: 1150 };
  },
  // The byte-for-byte check is the real one; the chain reads (blockhash valid, accounts exist) say yes.
  async checkSweep(transaction, expected) {
    if (!rpcUp) throw new ChainUnavailableError("chain 792703810's RPC did not answer: ECONNREFUSED");
    const checked = checkSolanaSweep(transaction, { ...expected, feePayer });
    return checked.ok ? { ok: true } : checked;
  },
  burnerSignature: () => null,
  // Every burner holds 5 USDC; the byte-for-byte check is the real one.
  async checkRefund(transaction, expected) {
    const checked = checkSolanaRefund(transaction, { ...expected, feePayer, amount: 5_000_000n });
    if (!checked.ok) return { ...checked, empty: false };
    return { ok: true, amount: 5_000_000n, signature: "refundSig" };
  },
};

let gw: Awaited<ReturnType<typeof testGateway>>;
beforeAll(async () => {
  gw = await testGateway({}, { solana: port });
});
afterAll(() => gw.app.close());

const post = (url: string, payload: object) => gw.app.inject({ method: "POST", url, payload });

async function created(body: object = {}) {
  const res = await post("/sessions/solana", {
    destination_address: destination,
    destination_chain: SOLANA,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe("POST /sessions/solana", () => {
  it("creates a Solana-origin session and answers the terms its sweep must meet", async () => {
    const refund = solanaKey().address;
    const s = await created({ refund_address: refund });
    expect(s.status).toBe("pending");
    expect(s.sweep).toEqual({
      chain_id: SOLANA,
      usdc_mint: USDC_MINT,
      fee_payer: feePayer,
      fee_bps: 80,
      app_fee_bps: 0,
      app_fee_recipient_sol: null,
      sweep_to: destination,
      open_sweep_to: false,
    });
    const command = gw.service.sent.at(-1);
    expect(command?.type === "CreateSession" && command.data).toMatchObject({
      originChainId: SOLANA,
      burner: null,
      auth: null,
      destAddress: destination,
      destChainId: SOLANA,
      refundAddress: refund,
      appFeeRecipientSol: null,
    });
    const read = (await gw.app.inject({ url: `/sessions/${s.id}` })).json();
    expect(read).toMatchObject({
      dest_address: destination,
      dest_chain_id: SOLANA,
      app_fee_recipient_sol: null,
    });
  });

  it("sweeps to the service's vault when the destination is on an EVM chain (the fast fill pays it)", async () => {
    const s = await created({
      destination_address: "0x4444444444444444444444444444444444444444",
      destination_chain: EVM,
    });
    expect(s.sweep.sweep_to).toBe(vault);
  });

  it.each([
    [
      "a destination that is no base58 key",
      { destination_address: "0x4444444444444444444444444444444444444444" },
    ],
    [
      "an EVM destination that is no 0x address",
      { destination_address: destination, destination_chain: EVM },
    ],
    ["a burner of 31 bytes", { burner_address: "1111111111111111111111111111111" }],
    ["a refund address with a 0", { refund_address: `0${destination.slice(1)}` }],
    ["an unknown key", { amount: "1" }],
    ["the burner as its own destination", { burner_address: destination }],
  ])("refuses %s with a 400 and sends nothing", async (_what, body) => {
    const before = gw.service.sent.length;
    const res = await post("/sessions/solana", {
      destination_address: destination,
      destination_chain: SOLANA,
      ...body,
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toHaveProperty("error");
    expect(gw.service.sent.length).toBe(before);
  });

  describe("naming its burner (burner_address with burner_signature)", () => {
    const refund = solanaKey().address;
    const asked = { destination_address: destination, destination_chain: SOLANA, refund_address: refund };
    /** The body naming `burner`, signed over `signedFor` (by default what the body asks). */
    const named = (
      burner: ReturnType<typeof solanaKey>,
      signedFor: Parameters<typeof solanaSessionMessage>[0] = asked,
    ) => ({
      ...asked,
      burner_address: burner.address,
      burner_signature: burner.sign(solanaSessionMessage(signedFor)),
    });

    it("takes a burner whose key signed the message naming the session's destination and refund address", async () => {
      const burner = solanaKey();
      const res = await post("/sessions/solana", named(burner));
      expect(res.statusCode, res.body).toBe(200);
      const command = gw.service.sent.at(-1);
      expect(command?.type === "CreateSession" && command.data).toMatchObject({
        burner: burner.address,
        destAddress: destination,
        refundAddress: refund,
      });
      // The message is the body's own fields: without a refund address its last part is empty.
      const { refund_address: _, ...noRefund } = asked;
      const bare = await post("/sessions/solana", {
        ...noRefund,
        burner_address: burner.address,
        burner_signature: burner.sign(
          new TextEncoder().encode(`deposit-settlement:solana-session:${SOLANA}:${destination}:`),
        ),
      });
      expect(bare.statusCode, bare.body).toBe(200);
    });

    it.each([
      ["no signature", () => ({ ...asked, burner_address: solanaKey().address }), /burner_signature/],
      [
        "another key's signature",
        () => ({ ...named(solanaKey()), burner_address: solanaKey().address }),
        /ed25519/,
      ],
      [
        "a signature for another destination",
        () => named(solanaKey(), { ...asked, destination_address: solanaKey().address }),
        /ed25519/,
      ],
      [
        "a signature for another refund address",
        () => named(solanaKey(), { ...asked, refund_address: solanaKey().address }),
        /ed25519/,
      ],
      [
        "a signature without a burner",
        () => ({ ...asked, burner_signature: solanaKey().sign(solanaSessionMessage(asked)) }),
        /only with burner_address/,
      ],
      ["the vault, signed by its own key", () => named(vaultKey), /service's own/],
      ["the relayer, signed by its own key", () => named(feePayerKey), /service's own/],
    ])("refuses %s: 400 and sends nothing", async (_what, body, error) => {
      const before = gw.service.sent.length;
      const res = await post("/sessions/solana", body());
      expect([res.statusCode, res.json().error]).toEqual([400, expect.stringMatching(error)]);
      expect(gw.service.sent.length).toBe(before);
    });
  });

  it("refuses a destination chain that is not configured", async () => {
    const res = await post("/sessions/solana", { destination_address: destination, destination_chain: 5 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/destination_chain: 5 is not a configured chain/);
  });
});

describe("POST /sessions/:id/solana-burner", () => {
  const register = (id: string, burner: ReturnType<typeof solanaKey>, signedFor = id) =>
    post(`/sessions/${id}/solana-burner`, {
      burner_address: burner.address,
      signature: burner.sign(solanaBurnerMessage(signedFor)),
    });

  it("registers the burner once; the same registration again is answered, another is 409", async () => {
    const { id } = await created();
    const burner = solanaKey();
    const first = await register(id, burner);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ id, status: "pending" });
    expect((await register(id, burner)).statusCode).toBe(200);
    const other = await register(id, solanaKey());
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatch(/already registered/);
    const read = (await gw.app.inject({ url: `/sessions/${id}` })).json();
    expect(read.burner_address).toBe(burner.address);
    expect(read.eip7702_auth).toBeNull();
  });

  it("refuses a signature of another session's message: 400, nothing sent", async () => {
    const { id } = await created();
    const before = gw.service.sent.length;
    const res = await register(id, solanaKey(), "0b6a3c52-6f3e-4c1e-9a39-2d1f4c8e7a10");
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/ed25519 signature/);
    expect(gw.service.sent.length).toBe(before);
  });

  it("refuses a Solana burner on an EVM session (409 not_solana_session)", async () => {
    const evm = await post("/sessions", await signedSessionBody());
    expect(evm.statusCode, evm.body).toBe(200);
    const res = await register(evm.json().id, solanaKey());
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/Solana-origin session/);
  });

  it("answers 404 for a session that does not exist", async () => {
    const id = "0b6a3c52-6f3e-4c1e-9a39-2d1f4c8e7a10";
    expect((await register(id, solanaKey())).statusCode).toBe(404);
  });

  it.each([
    ["vault", vaultKey],
    ["relayer", feePayerKey],
  ])(
    "refuses the service's %s as the burner, even signed by its own key: 400, nothing sent",
    async (_what, key) => {
      const { id } = await created();
      const before = gw.service.sent.length;
      const res = await register(id, key);
      expect([res.statusCode, res.json().error]).toEqual([400, expect.stringMatching(/service's own/)]);
      expect(gw.service.sent.length).toBe(before);
    },
  );

  describe("with a bounce setup (docs/SOLANA.md, The bounce)", () => {
    const blockhash = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
    /** A web3.js burner, its registration signed with Node's ed25519 from the same key. */
    const withSetup = (id: string, refundTo: string, relayer = feePayer, signedOn = blockhash) => {
      const burner = makeSolanaBurner();
      const setup = signSolanaBounceSetup({
        sessionId: id,
        burner: burner.keypair,
        refundTo,
        relayer,
        mint: USDC_MINT,
        blockhash: signedOn,
      });
      return post(`/sessions/${id}/solana-burner`, {
        burner_address: burner.address,
        signature: signerOf(burner.keypair)(solanaBurnerMessage(id)),
        bounce_setup: setup,
      });
    };

    it("keeps the refund address the burner signed and hands the setup to the executor", async () => {
      const { id } = await created();
      const wallet = solanaKey().address;
      const res = await withSetup(id, wallet);
      expect(res.statusCode, res.body).toBe(200);
      const sent = gw.service.sent.at(-1) as SessionInput;
      expect(sent).toMatchObject({ type: "RegisterBurner", data: { bounceSetup: { refundTo: wallet } } });
    });

    it("refuses a setup that approves another delegate: 400 invalid_bounce_setup, nothing sent", async () => {
      const { id } = await created();
      const before = gw.service.sent.length;
      const res = await withSetup(id, solanaKey().address, solanaKey().address);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(/bounce_setup: the transaction is not the bounce setup/);
      expect(gw.service.sent.length).toBe(before);
    });

    it("refuses a setup signed on an expired blockhash: 400 invalid_bounce_setup, nothing sent", async () => {
      const { id } = await created();
      const before = gw.service.sent.length;
      const res = await withSetup(id, solanaKey().address, feePayer, EXPIRED_BLOCKHASH);
      expect([res.statusCode, res.json().error]).toEqual([
        400,
        expect.stringMatching(/bounce_setup: its blockhash expired/),
      ]);
      expect(gw.service.sent.length).toBe(before);
    });

    it("answers 502 and sends nothing when the chain cannot say whether its blockhash is valid", async () => {
      const { id } = await created();
      const before = gw.service.sent.length;
      rpcUp = false;
      try {
        const res = await withSetup(id, solanaKey().address);
        expect([res.statusCode, res.json().error]).toEqual([
          502,
          expect.stringMatching(/RPC did not answer/),
        ]);
      } finally {
        rpcUp = true;
      }
      expect(gw.service.sent.length).toBe(before);
    });

    it("refuses a setup naming another refund address than the session's: 409", async () => {
      const { id } = await created({ refund_address: solanaKey().address });
      const res = await withSetup(id, solanaKey().address);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/another refund address/);
    });
  });
});

describe("GET /solana/blockhash", () => {
  it("answers the blockhash and lastValidBlockHeight web3.js confirms with", async () => {
    const res = await gw.app.inject({ url: "/solana/blockhash" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(res.json()).toEqual({
      blockhash: "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn",
      lastValidBlockHeight: 1150,
    });
  });

  it("answers 502 when the RPC does not answer, and 400 for another chain", async () => {
    rpcUp = false;
    try {
      const res = await gw.app.inject({ url: "/solana/blockhash" });
      expect(res.statusCode).toBe(502);
      expect(res.json().error).toMatch(/RPC did not answer/);
    } finally {
      rpcUp = true;
    }
    expect((await gw.app.inject({ url: `/solana/blockhash?chain_id=${EVM}` })).statusCode).toBe(400);
  });
});

describe("the Solana port's key and signature checks", () => {
  it("takes canonical base58 keys only and checks ed25519 signatures", () => {
    const key = solanaKey();
    expect(parseSolanaAddress(key.address)).toBe(key.address);
    expect(parseSolanaAddress(`1${key.address}`)).toBeNull();
    expect(parseSolanaAddress("not base58!")).toBeNull();
    const message = new TextEncoder().encode("m");
    expect(verifyEd25519(key.address, message, key.sign(message))).toBe(true);
    expect(verifyEd25519(solanaKey().address, message, key.sign(message))).toBe(false);
    expect(verifyEd25519(key.address, message, "2")).toBe(false);
  });
});

describe("the session core on a Solana-origin session", () => {
  const ID = "5d7c1f0e-9a7b-4c3d-8e2f-1a2b3c4d5e6f";
  const meta = (n: number) => ({ commandId: `c${n}`, issuedAt: 1_800_000_000_000 + n, replyTo: null });
  // An EVM checkout session (originChainId null) for contrast: it has a client secret.
  const create = (originChainId: number | null) =>
    solanaSessionCreated(
      {
        sessionId: ID,
        destAddress: destination,
        originChainId,
        clientSecretHash: originChainId === null ? "ab".repeat(32) : null,
      },
      meta(1),
    );
  const register = (auth: Authorization | null): SessionInput => ({
    type: "RegisterBurner",
    data: { sessionId: ID, burner: solanaKey().address, auth, standingRefund: null, bounceSetup: null },
    metadata: meta(2),
  });
  const auth: Authorization = {
    address: "0x1111111111111111111111111111111111111111",
    chainId: EVM,
    nonce: 0,
    r: `0x${"01".repeat(32)}`,
    s: `0x${"02".repeat(32)}`,
    yParity: 0,
  };
  const stateAfter = (...inputs: SessionInput[]): SessionState => sessionRun(...inputs).stateOrNull;
  const refusal = (input: SessionInput, state: SessionState) => {
    const d = decide(input, state);
    return d.ok ? null : d.rejection.code;
  };

  it("keeps its chain and takes a Solana burner only (no authorization), and an EVM checkout the reverse", () => {
    const solana = stateAfter(create(SOLANA));
    expect(solana?.originChainId).toBe(SOLANA);
    expect(refusal(register(auth), solana)).toBe("not_checkout");
    expect(stateAfter(create(SOLANA), register(null))?.auth).toBeNull();
    const checkout = stateAfter(create(null));
    expect(refusal(register(null), checkout)).toBe("not_solana_session");
    expect(refusal(register(auth), checkout)).toBeNull();
  });

  it("refuses an EVM Intent: it is settled by its Solana sweep", () => {
    const state = stateAfter(create(SOLANA));
    const commit: SessionInput = {
      type: "CommitIntent",
      data: {
        sessionId: ID,
        intent: {
          destChainId: SOLANA,
          destAddr: "0x4444444444444444444444444444444444444444",
          minOut: 1n,
          deadline: 1_800_003_600,
          salt: "0x01",
          inToken: NATIVE_TOKEN,
          maxIn: 1n,
          appFeeBps: 0,
          appFeeRecipient: NATIVE_TOKEN,
        },
        signature: "0x01",
        sourceChainId: SOLANA,
        feeBps: 80,
        burner: null,
        auth: null,
        merchantPins: null,
      },
      metadata: meta(3),
    };
    expect(refusal(commit, state)).toBe("solana_sweep_expected");
  });
});

describe("POST /sessions/:id/commit with a Solana body", () => {
  it("takes the sweep the session owes and refuses one signed for another destination, sending nothing", async () => {
    const burner = Keypair.generate();
    const { id } = await created({
      burner_address: burner.publicKey.toBase58(),
      burner_signature: signerOf(burner)(
        solanaSessionMessage({ destination_address: destination, destination_chain: SOLANA }),
      ),
    });
    const deposit = solanaDeposit(
      id,
      { token: USDC_MINT, amount: 10_000_000n, from: solanaKey().address },
      "finalized",
      { commandId: "d1", issuedAt: 1_800_000_000_000, replyTo: null },
    );
    await gw.service.commands.send(deposit);
    const signedSweep = (to: string) => {
      const tx = buildSolanaSweep({
        burner: burner.publicKey.toBase58(),
        feePayer,
        token: USDC_MINT,
        legs: [
          { to, amount: 9_920_000n },
          { to: feePayer, amount: 80_000n },
        ],
        blockhash: "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn",
      });
      tx.partialSign(burner);
      return tx.serialize({ requireAllSignatures: false }).toString("base64");
    };
    const before = gw.service.sent.length;
    const refused = await post(`/sessions/${id}/commit`, { transaction: signedSweep(solanaKey().address) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/not the sweep this session owes/);
    expect(gw.service.sent.length).toBe(before);
    // The RPC down while the sweep is checked: 502, nothing sent; the same sweep goes through after.
    rpcUp = false;
    try {
      const down = await post(`/sessions/${id}/commit`, { transaction: signedSweep(destination) });
      expect([down.statusCode, down.json().error]).toEqual([
        502,
        expect.stringMatching(/RPC did not answer/),
      ]);
    } finally {
      rpcUp = true;
    }
    expect(gw.service.sent.length).toBe(before);
    const res = await post(`/sessions/${id}/commit`, { transaction: signedSweep(destination) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ id, status: "detected", fee_bps: 80, app_fee_bps: 0 });
    expect(gw.service.sent.at(-1)).toMatchObject({ type: "CommitSolanaSweep", data: { feeBps: 80 } });
    expect((await post(`/sessions/${id}/commit`, { transaction: "AAAA", extra: 1 })).statusCode).toBe(400);
  });
});
