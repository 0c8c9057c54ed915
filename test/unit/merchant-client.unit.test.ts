import { describe, expect, it } from "vitest";
import {
  ApiError,
  ClientError,
  createMerchantClient,
  getMerchant,
  getWebhookDelivery,
  listWebhookDeliveries,
  redeliverWebhook,
  revokeKey,
  rollKey,
} from "../../src/client/merchant/index.ts";
import { sendJson } from "../support/local-http.ts";
import { failure, localMerchant, ok, SK } from "../support/merchant-local.ts";

// The merchant library's request building and error mapping against a real local HTTP server (real
// sockets, the real API client underneath); backoffs shortened so a retry takes milliseconds.

const { clientFor, requests, server: current } = localMerchant();

describe("createMerchantClient", () => {
  it("takes only a secret key: a pk_, a cs_ or nothing is a config_error at once", () => {
    for (const secretKey of [`pk_test_${"a".repeat(43)}`, `cs_test_${"a".repeat(43)}`, "", "sk_test_"]) {
      const made = () => createMerchantClient({ baseUrl: "http://127.0.0.1:1", secretKey });
      expect(made).toThrow(ClientError);
      expect(made).toThrow(/secretKey/);
    }
    expect(createMerchantClient({ baseUrl: "http://127.0.0.1:1", secretKey: SK }).mode).toBe("test");
  });

  it("sends the key as a Bearer on every request, and does not show it when logged", async () => {
    const client = await clientFor(ok({ id: "mer_1" }));
    await getMerchant(client);
    expect(current()?.requests[0]?.headers.authorization).toBe(`Bearer ${SK}`);
    expect(JSON.stringify(client)).not.toContain(SK);
  });
});

describe("the merchant actions build their requests", () => {
  it("getMerchant: GET /v1/merchant", async () => {
    const client = await clientFor(ok({ id: "mer_1", keys: [] }));
    expect(await getMerchant(client)).toEqual({ id: "mer_1", keys: [] });
    expect(requests()).toEqual([["GET", "/v1/merchant", ""]]);
  });

  it("rollKey: POST /v1/keys/roll without a body by default, with { type } when given", async () => {
    const client = await clientFor(ok({ id: "key_1", type: "secret", key: "sk_test_new" }));
    expect(await rollKey(client)).toEqual({ id: "key_1", type: "secret", key: "sk_test_new" });
    await rollKey(client, { type: "publishable" });
    expect(requests()).toEqual([
      ["POST", "/v1/keys/roll", ""],
      ["POST", "/v1/keys/roll", '{"type":"publishable"}'],
    ]);
    expect(current()?.requests[0]?.headers["content-type"]).toBeUndefined();
  });

  it("revokeKey: POST /v1/keys/:id/revoke, the id encoded; the 204 answers undefined", async () => {
    const client = await clientFor((_req, res) => res.writeHead(204).end());
    expect(await revokeKey(client, { keyId: "key_a/b" })).toBeUndefined();
    expect(requests()).toEqual([["POST", "/v1/keys/key_a%2Fb/revoke", ""]]);
  });

  it("listWebhookDeliveries: GET /v1/webhook_deliveries (?limit=), answering the list", async () => {
    const client = await clientFor(ok({ data: [{ id: "d1" }] }));
    expect(await listWebhookDeliveries(client)).toEqual([{ id: "d1" }]);
    await listWebhookDeliveries(client, { limit: 5 });
    expect(requests()).toEqual([
      ["GET", "/v1/webhook_deliveries", ""],
      ["GET", "/v1/webhook_deliveries?limit=5", ""],
    ]);
  });

  it("getWebhookDelivery and redeliverWebhook: the delivery's id encoded in the path", async () => {
    const client = await clientFor(ok({ id: "sess:1/x", state: "pending" }));
    await getWebhookDelivery(client, { id: "sess:1/x" });
    expect(await redeliverWebhook(client, { id: "sess:1/x" })).toMatchObject({ state: "pending" });
    expect(requests()).toEqual([
      ["GET", "/v1/webhook_deliveries/sess%3A1%2Fx", ""],
      ["POST", "/v1/webhook_deliveries/sess%3A1%2Fx/redeliver", ""],
    ]);
  });
});

describe("the merchant actions' errors", () => {
  it("a 401 is an http ApiError with the service's message, not retried", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 401, { error: "revoked key" }));
    const err = await failure(getMerchant(client));
    expect(err).toBeInstanceOf(ApiError);
    expect([err.kind, err.status, err.serverMessage, err.retryable]).toEqual([
      "http",
      401,
      "revoked key",
      false,
    ]);
    expect(current()?.requests).toHaveLength(1);
  });

  it("a 409 of a redelivery is not retried; a 503 of a read is, by the client's rules", async () => {
    const client = await clientFor((_req, res, n) =>
      n === 1
        ? sendJson(res, 409, { error: "not failed" })
        : n === 2
          ? sendJson(res, 503, {})
          : sendJson(res, 200, { data: [] }),
    );
    expect((await failure(redeliverWebhook(client, { id: "d1" }))).status).toBe(409);
    expect(await listWebhookDeliveries(client)).toEqual([]);
    expect(current()?.requests).toHaveLength(3);
  });

  it("a roll is tried once: its 503 is thrown, not retried with a key the roll may have revoked", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 503, { error: "reply timeout" }));
    const err = await failure(rollKey(client));
    expect([err.kind, err.status, err.retryable]).toEqual(["http", 503, true]);
    expect(current()?.requests).toHaveLength(1);
  });

  it("a 200 that is not JSON is a parse error (only a 204 may be empty)", async () => {
    const client = await clientFor((_req, res) => res.writeHead(200).end(""));
    expect((await failure(revokeKey(client, { keyId: "key_1" }))).kind).toBe("parse");
  });
});
