import { afterEach, describe, expect, it } from "vitest";
import { commit } from "../../src/client/actions/commit.ts";
import { getQuote } from "../../src/client/actions/get-quote.ts";
import { payCheckout } from "../../src/client/actions/pay-checkout.ts";
import { registerBurner } from "../../src/client/actions/register-burner.ts";
import { waitForStatus } from "../../src/client/actions/wait-for-status.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { newBurner } from "../../src/client/burner.ts";
import { checkoutHeaders, withCheckoutQuery } from "../../src/client/checkout.ts";
import { ApiError, ClientError } from "../../src/client/errors.ts";
import { signedIntent as signed } from "../support/client-fixtures.ts";
import { type Handler, type LocalServer, sendJson, serve } from "../support/local-http.ts";

// The client's checkout support against a real local server: the pk_ and cs_ go as headers on
// register, commit and quote and as query parameters on the event stream, nowhere else; a register
// whose answer was lost is recognised by the burner the session holds.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const CHECKOUT = { publishableKey: "pk_test_abc", clientSecret: "cs_test_s3cr3t+/=" };
const FAST = { attempts: 3, baseMs: 5, maxMs: 20 };
const burner = await newBurner({ chainId: 31337, delegate: "0x2222222222222222222222222222222222222222" });

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
/** `null`: an anonymous client (no checkout credentials). */
async function clientFor(handler: Handler, checkout: typeof CHECKOUT | null = CHECKOUT) {
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: FAST, ...(checkout ? { checkout } : {}) });
}
const sessionJson = (over: object) => ({ id: ID, status: "pending", burner_address: null, ...over });

describe("checkout credentials", () => {
  it("are two headers, and none for an anonymous session", () => {
    expect(checkoutHeaders(CHECKOUT)).toEqual({
      authorization: "Bearer pk_test_abc",
      "x-client-secret": "cs_test_s3cr3t+/=",
    });
    expect(checkoutHeaders(null)).toEqual({});
  });

  it("are the stream's pk and client_secret query parameters, URL-encoded", () => {
    const path = withCheckoutQuery("/sessions/x/events", CHECKOUT);
    const query = new URLSearchParams(path.split("?")[1]);
    expect(path.startsWith("/sessions/x/events?")).toBe(true);
    expect(query.get("pk")).toBe("pk_test_abc");
    expect(query.get("client_secret")).toBe("cs_test_s3cr3t+/=");
    expect(withCheckoutQuery("/sessions/x/events", undefined)).toBe("/sessions/x/events");
  });

  it("of the wrong kind are a config_error when the client is made", () => {
    for (const checkout of [
      { publishableKey: "sk_test_x", clientSecret: "cs_test_x" },
      { publishableKey: "pk_test_x", clientSecret: "pk_test_x" },
    ]) {
      const make = () => createApiClient({ baseUrl: "http://127.0.0.1:1", checkout });
      expect(make).toThrow(ClientError);
      expect(make).toThrow(/checkout/);
    }
  });
});

describe("registerBurner", () => {
  it("posts the burner and its authorization with the pk_ and cs_ headers", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 200, { id: ID, status: "pending" }));
    await expect(registerBurner(client, { id: ID, burner })).resolves.toEqual({ id: ID, status: "pending" });
    const [req] = server?.requests ?? [];
    expect(req).toMatchObject({ method: "POST", url: `/sessions/${ID}/register` });
    expect(req?.headers.authorization).toBe("Bearer pk_test_abc");
    expect(req?.headers["x-client-secret"]).toBe("cs_test_s3cr3t+/=");
    expect(JSON.parse(req?.body ?? "")).toEqual({
      burner_address: burner.address,
      eip7702_auth: burner.eip7702Auth,
    });
  });

  it("is a config_error without checkout credentials, and sends nothing", async () => {
    const client = await clientFor(() => {}, null);
    await expect(registerBurner(client, { id: ID, burner })).rejects.toMatchObject({ code: "config_error" });
    expect(server?.requests).toHaveLength(0);
  });

  it("takes a 409 for success when the session holds this very burner (a lost answer, retried)", async () => {
    const client = await clientFor((req, res) =>
      req.method === "POST"
        ? sendJson(res, 409, { error: "already registered" })
        : sendJson(res, 200, sessionJson({ burner_address: burner.address.toLowerCase() })),
    );
    await expect(registerBurner(client, { id: ID, burner })).resolves.toEqual({ id: ID, status: "pending" });
  });

  it("throws the 409 when another burner holds the slot", async () => {
    const other = "0x3333333333333333333333333333333333333333";
    const client = await clientFor((req, res) =>
      req.method === "POST"
        ? sendJson(res, 409, { error: "already registered" })
        : sendJson(res, 200, sessionJson({ burner_address: other })),
    );
    const err = await registerBurner(client, { id: ID, burner }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
  });
});

describe("the guarded session calls", () => {
  it("commit and quote carry the headers; a per-call checkout overrides the client's", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 200, {}));
    await commit(client, { id: ID, burner, signed });
    await getQuote(client, { id: ID, checkout: { publishableKey: "pk_test_2", clientSecret: "cs_test_2" } });
    const [c, q] = server?.requests ?? [];
    expect(c?.headers["x-client-secret"]).toBe("cs_test_s3cr3t+/=");
    expect(q?.headers.authorization).toBe("Bearer pk_test_2");
    expect(q?.headers["x-client-secret"]).toBe("cs_test_2");
  });

  it("an anonymous client sends no authorization", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 200, {}), null);
    await getQuote(client, { id: ID });
    expect(server?.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("the event stream carries pk and client_secret in its query", async () => {
    const client = await clientFor((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`event: status\ndata: ${JSON.stringify(sessionJson({ status: "swept" }))}\n\n`);
    });
    await waitForStatus(client, { id: ID, status: "swept", timeout: 5000 });
    const url = new URL(server?.requests[0]?.url ?? "", "http://x");
    expect(url.pathname).toBe(`/sessions/${ID}/events`);
    expect(url.searchParams.get("pk")).toBe("pk_test_abc");
    expect(url.searchParams.get("client_secret")).toBe("cs_test_s3cr3t+/=");
  });
});

describe("payCheckout", () => {
  it("registers, follows the stream with pk + cs, signs to the session's destination, commits with the headers, waits for swept", async () => {
    const usdc = "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9";
    const dest = "0x90f79bf6eb2c4f870365e785982e1f101e93b906";
    let current = sessionJson({
      status: "detected",
      error_message: null,
      burner_address: burner.address.toLowerCase(),
      dest_address: dest,
      dest_chain_id: 31338,
      app_fee_bps: 100,
      app_fee_recipient: "0x5555555555555555555555555555555555555555",
      source_chain_id: 31337,
      detected_token: usdc,
      detected_amount: "10000000",
      detected_tx: `0x${"ab".repeat(32)}`,
    });
    const client = await clientFor((req, res) => {
      const path = req.url?.split("?")[0]?.replace(ID, ":id");
      if (path === "/sessions/:id/register") return sendJson(res, 200, { id: ID, status: "pending" });
      if (path === "/sessions/:id/commit") {
        current = { ...current, status: "swept" };
        return sendJson(res, 200, {
          id: ID,
          status: "detected",
          fee_bps: 80,
          app_fee_bps: 100,
          app_fee_recipient: "0x5",
        });
      }
      if (path === "/sessions/:id/events") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        return res.write(`event: status\ndata: ${JSON.stringify(current)}\n\n`);
      }
      sendJson(res, 404, { error: path });
    });
    const registered: unknown[] = [];
    const out = await payCheckout(client, {
      id: ID,
      burner,
      usdc: { 31337: usdc },
      onRegistered: (r) => {
        registered.push(r);
      },
    });
    expect(registered).toEqual([{ id: ID, status: "pending" }]);
    expect(out.signed.intent).toMatchObject({ dest_addr: dest, dest_chain_id: 31338, app_fee_bps: 100 });
    expect(out.settled.status).toBe("swept");
    const requests = server?.requests ?? [];
    expect(requests.map((r) => `${r.method} ${r.url.split("?")[0]?.replace(ID, ":id")}`)).toEqual([
      "POST /sessions/:id/register",
      "GET /sessions/:id/events",
      "POST /sessions/:id/commit",
      "GET /sessions/:id/events",
    ]);
    for (const r of requests) {
      if (r.method === "POST") expect(r.headers["x-client-secret"], r.url).toBe(CHECKOUT.clientSecret);
      else expect(new URL(r.url, "http://x").searchParams.get("client_secret")).toBe(CHECKOUT.clientSecret);
    }
  });
});
