import { afterEach, describe, expect, it } from "vitest";
import { commit } from "../../src/client/actions/commit.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { newBurner } from "../../src/client/burner.ts";
import { ApiError, ClientError } from "../../src/client/errors.ts";
import { signedIntent as signed } from "../support/client-fixtures.ts";
import { type Handler, type LocalServer, refusedUrl, sendJson, serve } from "../support/local-http.ts";

// commit against a real local server: what it sends, what it retries (429, 5xx, network, timeout:
// the burner is funded and an identical commit is answered as the first), and what it never retries.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const FAST = { attempts: 4, baseMs: 5, maxMs: 20 };
const burner = await newBurner({ chainId: 31337, delegate: "0x2222222222222222222222222222222222222222" });
const ACCEPTED = {
  id: ID,
  status: "detected",
  fee_bps: 80,
  app_fee_bps: 0,
  app_fee_recipient: "0x0000000000000000000000000000000000000000",
};

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function clientFor(handler: Handler) {
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: FAST });
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err as ClientError,
  );

describe("commit", () => {
  it("posts the Intent with intent_sigs keyed by the source chain, and answers the service's reply", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 200, ACCEPTED));
    await expect(commit(client, { id: ID, burner, signed })).resolves.toEqual(ACCEPTED);
    expect(server?.requests[0]).toMatchObject({ method: "POST", url: `/sessions/${ID}/commit` });
    expect(JSON.parse(server?.requests[0]?.body ?? "")).toEqual({
      burner: burner.address,
      eip7702_auth: burner.eip7702Auth,
      intent: signed.intent,
      intent_sigs: { "31337": signed.signature },
    });
  });

  it("retries 5xx and 429 past the client's own attempts, with the same body, until accepted", async () => {
    const client = await clientFor((_req, res, n) =>
      n <= 5 ? sendJson(res, n % 2 ? 503 : 429, { error: "busy" }) : sendJson(res, 200, ACCEPTED),
    );
    await expect(commit(client, { id: ID, burner, signed })).resolves.toEqual(ACCEPTED);
    const bodies = new Set(server?.requests.map((r) => r.body));
    expect(server?.requests).toHaveLength(6);
    expect(bodies.size).toBe(1);
  });

  it("never retries a refusal: commit_failed, not retryable, with the service's status and message", async () => {
    const client = await clientFor((_req, res) =>
      sendJson(res, 409, { error: "another Intent is committed" }),
    );
    const err = await failure(commit(client, { id: ID, burner, signed }));
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ code: "commit_failed", retryable: false });
    expect(err.cause).toBeInstanceOf(ApiError);
    expect(err.cause).toMatchObject({
      kind: "http",
      status: 409,
      serverMessage: "another Intent is committed",
    });
    expect(server?.requests).toHaveLength(1);
  });

  it("gives up on an unreachable service after retryFor: commit_failed, retryable (commit again later)", async () => {
    const client = createApiClient({ baseUrl: await refusedUrl(), retry: FAST });
    const started = Date.now();
    const err = await failure(commit(client, { id: ID, burner, signed, retryFor: 300 }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(err).toMatchObject({
      code: "commit_failed",
      retryable: true,
      cause: { kind: "network", status: 0 },
    });
  });

  it("does not retry past the Intent's deadline", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 503, { error: "down" }));
    const expired = { ...signed, intent: { ...signed.intent, deadline: Math.floor(Date.now() / 1000) - 1 } };
    const err = await failure(commit(client, { id: ID, burner, signed: expired, retryFor: 60_000 }));
    expect(err).toMatchObject({ code: "commit_failed", retryable: true, cause: { status: 503 } });
    expect(server?.requests).toHaveLength(1);
  });

  it("stops when the caller aborts, with the caller's reason", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 503, { error: "down" }));
    const reason = new Error("user left");
    const abort = new AbortController();
    setTimeout(() => abort.abort(reason), 60);
    await expect(commit(client, { id: ID, burner, signed, signal: abort.signal })).rejects.toBe(reason);
  });
});
