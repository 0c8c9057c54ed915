import type { IncomingMessage, ServerResponse } from "node:http";
import { Keypair, PublicKey } from "@solana/web3.js";
import { afterEach, describe, expect, it } from "vitest";
import { solanaBurnerMessage, solanaSessionMessage } from "../../src/api/solana.ts";
import { checkBounceSetup } from "../../src/chains/solana/bounce-setup.ts";
import { verifyEd25519 } from "../../src/chains/solana/gateway-side.ts";
import { checkSolanaSweep } from "../../src/chains/solana/sweep.ts";
import { commitSolanaSweep } from "../../src/client/actions/commit-solana-sweep.ts";
import { createSolanaSession } from "../../src/client/actions/create-solana-session.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { paySolanaDetectThenSign } from "../../src/client/actions/pay-solana-detect-then-sign.ts";
import { registerSolanaBurner } from "../../src/client/actions/register-solana-burner.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { type LocalServer, sendJson, serve } from "../support/local-http.ts";

// paySolanaDetectThenSign's own rules against a local server that plays the Solana routes: the
// requests it makes and their bodies, each checked with the service's own checkers (registration
// signature, bounce setup, sweep), and the sweep signed again when a commit is refused because the
// deposit grew. (The real service runs the flow in test/e2e/client.e2e.test.ts.)

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const CHAIN = 792703810;
const relayer = Keypair.generate().publicKey.toBase58();
const mint = Keypair.generate().publicKey.toBase58();
const dest = Keypair.generate().publicKey.toBase58();
const wallet = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const DEST = { address: dest, chainId: CHAIN };
const terms = {
  chain_id: CHAIN,
  usdc_mint: mint,
  fee_payer: relayer,
  fee_bps: 80,
  app_fee_bps: 0,
  app_fee_recipient_sol: null,
  sweep_to: dest,
  open_sweep_to: false,
};

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The Solana routes over one mutable session; `commitAnswer` decides each commit's status. */
async function service(burner: string, commitAnswer: (n: number) => number = () => 200) {
  let current = {
    id: ID,
    status: "detected",
    error_message: null,
    burner_address: burner,
    source_chain_id: CHAIN,
    detected_token: mint,
    detected_amount: "1000000",
    detected_tx: "5".repeat(88),
    dest_address: dest,
    dest_chain_id: CHAIN,
    app_fee_bps: 0,
    app_fee_recipient_sol: null,
  };
  let commits = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const route = `${req.method} ${req.url?.replace(ID, ":id").replace(/\?.*/, "")}`;
    if (route === "POST /sessions/solana")
      return sendJson(res, 200, { id: ID, status: "pending", expires_at: 1, sweep: terms });
    if (route === "GET /solana/blockhash")
      return sendJson(res, 200, { blockhash: BLOCKHASH, lastValidBlockHeight: 1000 });
    if (route === "POST /sessions/:id/solana-burner")
      return sendJson(res, 200, { id: ID, status: "pending" });
    if (route === "GET /sessions/:id") return sendJson(res, 200, current);
    if (route === "POST /sessions/:id/commit") {
      const status = commitAnswer(++commits);
      if (status !== 200) {
        current = { ...current, detected_amount: "3000000" }; // a second deposit landed first
        return sendJson(res, status, { error: "transaction: not the sweep this session owes" });
      }
      current = { ...current, status: "swept" };
      return sendJson(res, 200, {
        id: ID,
        status: "detected",
        fee_bps: 80,
        app_fee_bps: 0,
        app_fee_recipient: "0x0",
      });
    }
    if (route === "GET /sessions/:id/events") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      return res.write(`event: status\ndata: ${JSON.stringify(current)}\n\n`);
    }
    sendJson(res, 404, { error: route });
  };
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: { attempts: 2, baseMs: 5, maxMs: 20 } });
}

const requests = (route: string) =>
  (server?.requests ?? [])
    .filter((r) => `${r.method} ${r.url.replace(ID, ":id").replace(/\?.*/, "")}` === route)
    .map((r) => JSON.parse(r.body) as Record<string, unknown>);

describe("createSolanaSession with a burner", () => {
  it("names it with the proof the gateway verifies; every retry sends the same body", async () => {
    const burner = makeSolanaBurner();
    let tries = 0;
    server = await serve((_req, res) =>
      ++tries === 1
        ? sendJson(res, 503, { error: "retry" })
        : sendJson(res, 200, { id: ID, status: "pending", expires_at: 1, sweep: terms }),
    );
    const client = createApiClient({ baseUrl: server.url, retry: { attempts: 2, baseMs: 5, maxMs: 20 } });
    await createSolanaSession(client, { destination: DEST, refundAddress: wallet, burner: burner.keypair });
    const [first, again] = requests("POST /sessions/solana");
    expect(again).toEqual(first);
    expect(first).toEqual({
      destination_address: dest,
      destination_chain: CHAIN,
      refund_address: wallet,
      burner_address: burner.address,
      burner_signature: expect.any(String),
    });
    const message = solanaSessionMessage({
      destination_address: dest,
      destination_chain: CHAIN,
      refund_address: wallet,
    });
    expect(verifyEd25519(burner.address, message, first?.burner_signature as string)).toBe(true);
  });
});

describe("paySolanaDetectThenSign", () => {
  it("creates, registers with a proof the gateway verifies, signs the sweep its checker accepts, commits, waits for swept", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address);
    const out = await paySolanaDetectThenSign(client, { burner, destination: DEST });
    expect(out.settled.status).toBe("swept");
    expect(requests("POST /sessions/solana")).toEqual([
      { destination_address: dest, destination_chain: CHAIN },
    ]);
    const [registration] = requests("POST /sessions/:id/solana-burner");
    expect(registration).toEqual({ burner_address: burner.address, signature: expect.any(String) });
    expect(verifyEd25519(burner.address, solanaBurnerMessage(ID), registration?.signature as string)).toBe(
      true,
    );
    const [committed] = requests("POST /sessions/:id/commit");
    expect(Object.keys(committed ?? {})).toEqual(["transaction"]);
    const legs = [
      { to: dest, amount: 992_000n },
      { to: relayer, amount: 8_000n },
    ];
    const check = checkSolanaSweep(committed?.transaction as string, {
      burner: burner.address,
      feePayer: relayer,
      token: mint,
      legs,
    });
    expect(check.ok).toBe(true);
  });

  it("with refundTo: the session's refund_address, and a bounce setup naming it added once the deposit is detected", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address);
    await paySolanaDetectThenSign(client, { burner, destination: DEST, refundTo: wallet });
    expect(requests("POST /sessions/solana")[0]).toMatchObject({ refund_address: wallet });
    // Registered without it (nothing for the relayer to pay before a deposit), then added with it.
    const [first, second] = requests("POST /sessions/:id/solana-burner");
    expect(first?.bounce_setup).toBeUndefined();
    expect(second?.burner_address).toBe(burner.address);
    const setup = second?.bounce_setup as string;
    const checked = checkBounceSetup(setup, {
      sessionId: ID,
      burner: burner.keypair.publicKey,
      relayer: new PublicKey(relayer),
      mint: new PublicKey(mint),
    });
    expect(checked.ok && checked.refundTo).toBe(wallet);
  });

  it("signs again for the grown deposit when the commit is refused, and commits that", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address, (n) => (n === 1 ? 400 : 200));
    const out = await paySolanaDetectThenSign(client, { burner, destination: DEST });
    expect(out.detected.detected_amount).toBe("3000000");
    expect(out.signed.legs.map((l) => l.amount)).toEqual([2_976_000n, 24_000n]);
    expect(requests("POST /sessions/:id/commit")).toHaveLength(2);
  });

  it("gives up after three refused sweeps: commit_failed, not retryable", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address, () => 400);
    await expect(paySolanaDetectThenSign(client, { burner, destination: DEST })).rejects.toMatchObject({
      code: "commit_failed",
      retryable: false,
      cause: { status: 400 },
    });
    expect(requests("POST /sessions/:id/commit")).toHaveLength(3);
  });

  it("refuses to sign for a session that pays another destination: nothing committed", async () => {
    const burner = makeSolanaBurner();
    const client = await service(burner.address);
    const elsewhere = { address: wallet, chainId: CHAIN };
    await expect(paySolanaDetectThenSign(client, { burner, destination: elsewhere })).rejects.toMatchObject({
      code: "verification_failed",
    });
    expect(requests("POST /sessions/:id/commit")).toHaveLength(0);
  });
});

describe("a merchant's Solana checkout session", () => {
  it("registerSolanaBurner and commitSolanaSweep carry its pk_ and cs_ as headers; anonymous calls none", async () => {
    const burner = makeSolanaBurner();
    const anonymous = await service(burner.address);
    const checkout = { publishableKey: "pk_test_1", clientSecret: "cs_test_1" };
    const guarded = createApiClient({ baseUrl: anonymous.baseUrl, checkout });
    await registerSolanaBurner(guarded, { id: ID, burner: burner.keypair });
    await commitSolanaSweep(guarded, { id: ID, transaction: "AQ==" });
    await registerSolanaBurner(anonymous, { id: ID, burner: burner.keypair });
    const sent = (server?.requests ?? []).map((r) => [r.headers.authorization, r.headers["x-client-secret"]]);
    expect(sent).toEqual([
      ["Bearer pk_test_1", "cs_test_1"],
      ["Bearer pk_test_1", "cs_test_1"],
      [undefined, undefined],
    ]);
  });
});
