import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { payDetectThenSign } from "../../src/client/actions/pay-detect-then-sign.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { newBurner } from "../../src/client/burner.ts";
import { type LocalServer, sendJson, serve } from "../support/local-http.ts";

// payDetectThenSign's own rules against a local server that plays the service's routes: which steps
// it takes for a USDC and a swapped deposit, and the Intent signed again when the deposit grew
// between detection and commit. (The real service runs it in test/e2e/client-settlement.)

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const USDC = "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9";
const DAI = "0x2279b7a0a67db372996a5fab50d91eaa73d2ebe6";
const DEST = { address: "0x90f79bf6eb2c4f870365e785982e1f101e93b906", chainId: 31338 } as const;
const burner = await newBurner({ chainId: 31337, delegate: "0x1111111111111111111111111111111111111111" });

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function session(status: string, token: string, amount: string) {
  return {
    id: ID,
    status,
    error_message: null,
    burner_address: burner.address.toLowerCase(),
    dest_address: DEST.address,
    dest_chain_id: DEST.chainId,
    app_fee_bps: 0,
    app_fee_recipient: "0x0000000000000000000000000000000000000000",
    source_chain_id: 31337,
    detected_token: token,
    detected_amount: amount,
    detected_tx: `0x${"ab".repeat(32)}`,
  };
}

/**
 * The payer's own RPC, as far as quoteOnChain reads it: the delegate's three immutables, then the
 * router's getAmountsOut answering `out` USDC.
 */
function ownChain(out: bigint) {
  const answers: Record<string, unknown> = {
    ROUTER: "0x2222222222222222222222222222222222222222",
    WETH: "0x3333333333333333333333333333333333333333",
    USDC,
  };
  return {
    readContract: (async (args: { functionName: string; args?: readonly unknown[] }) =>
      args.functionName === "getAmountsOut" ? [args.args?.[0], out] : answers[args.functionName]) as never,
  };
}

/** The service's routes over one mutable session; `commit` decides each commit's answer. */
async function service(
  token: string,
  commitAnswer: (n: number, body: { intent: { max_in: string } }) => number,
) {
  let current = session("detected", token, "1000000");
  let commits = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const route = `${req.method} ${req.url?.replace(ID, ":id")}`;
    const body = server?.requests.at(-1)?.body ?? "";
    if (route === "POST /sessions") return sendJson(res, 200, { id: ID, status: "pending", expires_at: 1 });
    if (route === "GET /sessions/:id") return sendJson(res, 200, current);
    if (route === "GET /sessions/:id/quote")
      return sendJson(res, 200, { estimated_out: "990000", suggested_min_out: "985050" });
    if (route === "POST /sessions/:id/commit") {
      const status = commitAnswer(++commits, JSON.parse(body));
      if (status !== 200) return sendJson(res, status, { error: "intent_mismatch: max_in" });
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
  return {
    client: createApiClient({ baseUrl: server.url, retry: { attempts: 2, baseMs: 5, maxMs: 20 } }),
    grow: () => {
      current = { ...current, detected_amount: "3000000" };
    },
  };
}

const routes = () => server?.requests.map((r) => `${r.method} ${r.url.replace(ID, ":id")}`);

describe("payDetectThenSign", () => {
  it("USDC: create, detect, sign with min_out = the amount (no quote), commit, wait for swept", async () => {
    const { client } = await service(USDC, () => 200);
    const out = await payDetectThenSign(client, { burner, destination: DEST, usdc: { 31337: USDC } });
    expect(out.quote).toBeNull();
    expect(out.signed.intent).toMatchObject({ in_token: USDC, max_in: "1000000", min_out: "1000000" });
    expect(out.settled.status).toBe("swept");
    expect(routes()).toEqual([
      "POST /sessions",
      "GET /sessions/:id/events",
      "POST /sessions/:id/commit",
      "GET /sessions/:id/events",
    ]);
  });

  it("another token: the quote's floor is min_out, checked against the payer's own quote", async () => {
    const { client } = await service(DAI, () => 200);
    const out = await payDetectThenSign(client, {
      burner,
      destination: DEST,
      usdc: { 31337: USDC },
      publicClient: ownChain(990_000n),
    });
    expect(out.signed.intent).toMatchObject({ in_token: DAI, min_out: "985050" });
    expect(routes()).toContain("GET /sessions/:id/quote");
  });

  it("another token: refuses before signing when the service's floor is far below the payer's own quote", async () => {
    const { client } = await service(DAI, () => 200);
    const flow = payDetectThenSign(client, {
      burner,
      destination: DEST,
      usdc: { 31337: USDC },
      publicClient: ownChain(2_000_000n), // the pool says twice what the service's floor assumes
    });
    await expect(flow).rejects.toMatchObject({ code: "verification_failed" });
    await expect(
      payDetectThenSign(client, { burner, destination: DEST, usdc: { 31337: USDC } }),
    ).rejects.toMatchObject({
      code: "verification_failed",
      message: expect.stringContaining("own on-chain quote"),
    });
    expect(routes()).not.toContain("POST /sessions/:id/commit");
  });

  it("signs again for the grown deposit when the commit is refused, and commits that", async () => {
    let grow = () => {};
    const svc = await service(USDC, (n) => {
      if (n === 1) grow(); // a second transfer landed before the first commit
      return n === 1 ? 400 : 200;
    });
    grow = svc.grow;
    const out = await payDetectThenSign(svc.client, { burner, destination: DEST, usdc: { 31337: USDC } });
    const commits = server?.requests.filter((r) => r.url.endsWith("/commit")).map((r) => JSON.parse(r.body));
    expect(commits?.map((c) => c.intent.max_in)).toEqual(["1000000", "3000000"]);
    expect(out.detected.detected_amount).toBe("3000000");
    expect(out.signed.intent.max_in).toBe("3000000");
  });

  it("does not sign again when the refusal is not about the deposit: commit_failed", async () => {
    const { client } = await service(USDC, () => 409);
    await expect(
      payDetectThenSign(client, { burner, destination: DEST, usdc: { 31337: USDC } }),
    ).rejects.toMatchObject({
      code: "commit_failed",
      retryable: false,
      cause: { status: 409 },
    });
    expect(server?.requests.filter((r) => r.url.endsWith("/commit"))).toHaveLength(1);
  });

  it("refuses to sign for a session that pays another destination", async () => {
    const { client } = await service(USDC, () => 200);
    const elsewhere = { ...DEST, address: "0x000000000000000000000000000000000000dEaD" } as const;
    await expect(
      payDetectThenSign(client, { burner, destination: elsewhere, usdc: {} }),
    ).rejects.toMatchObject({
      code: "verification_failed",
    });
    expect(routes()).not.toContain("POST /sessions/:id/commit");
  });

  it("follows the stream before onCreated pays, and ends with onCreated's error when it fails", async () => {
    const { client } = await service(USDC, () => 200);
    let openBeforePaying = false;
    await payDetectThenSign(client, {
      burner,
      destination: DEST,
      usdc: { 31337: USDC },
      onCreated: async () => {
        await new Promise((r) => setTimeout(r, 50));
        openBeforePaying = routes()?.includes("GET /sessions/:id/events") ?? false;
      },
    });
    expect(openBeforePaying).toBe(true);

    const failed = new Error("the payer's wallet has no funds");
    await expect(
      payDetectThenSign(client, {
        burner,
        destination: DEST,
        usdc: {},
        onCreated: () => Promise.reject(failed),
      }),
    ).rejects.toBe(failed);
  });
});
