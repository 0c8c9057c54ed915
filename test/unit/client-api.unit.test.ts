import { afterEach, describe, expect, it } from "vitest";
import {
  type ApiClientConfig,
  createApiClient,
  DEFAULT_TIMEOUT_MS,
  retryAfterMs,
} from "../../src/client/api-client.ts";
import { ApiError, CLIENT_ERROR_CODES } from "../../src/client/errors.ts";
import { createSession, getSession } from "../../src/client/index.ts";
import { type Handler, type LocalServer, refusedUrl, sendJson, serve } from "../support/local-http.ts";

// The API client against a real HTTP server on a local port: real sockets, real timeouts, real
// refusals. Backoffs are shortened so retries take milliseconds, except where Retry-After is the point.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const FAST: ApiClientConfig["retry"] = { attempts: 3, baseMs: 5, maxMs: 20 };

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(handler: Handler, config: Partial<ApiClientConfig> = {}) {
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: FAST, ...config });
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err as ApiError,
  );

const burner = {
  address: "0x1111111111111111111111111111111111111111",
  eip7702Auth: {
    address: "0x2222222222222222222222222222222222222222",
    chainId: 31337,
    nonce: 0,
    r: `0x${"1".repeat(64)}`,
    s: `0x${"2".repeat(64)}`,
    yParity: 0,
  },
} as const;

describe("the API client's retries", () => {
  it("waits out a 429's Retry-After, then answers the 200", async () => {
    const client = await clientFor((_req, res, n) =>
      n === 1
        ? sendJson(res, 429, { error: "rate limited" }, { "retry-after": "1" })
        : sendJson(res, 200, { id: ID, status: "pending" }),
    );
    const started = Date.now();
    await expect(getSession(client, { id: ID })).resolves.toMatchObject({ id: ID, status: "pending" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server?.requests).toHaveLength(2);
  });

  it("retries a 503, and POST /sessions sends the same Idempotency-Key on every try", async () => {
    const client = await clientFor((_req, res, n) =>
      n === 1
        ? sendJson(res, 503, { error: "no reply in time" })
        : sendJson(res, 200, { id: ID, status: "pending", expires_at: 1 }),
    );
    const created = await createSession(client, {
      burner,
      destination: { address: "0x000000000000000000000000000000000000dEaD", chainId: 31338 },
    });
    expect(created).toEqual({ id: ID, status: "pending", expires_at: 1 });
    const [first, second] = server?.requests ?? [];
    expect(first?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers["idempotency-key"]).toBe(first?.headers["idempotency-key"]);
    expect(second?.body).toBe(first?.body);
    expect(JSON.parse(first?.body ?? "")).toEqual({
      burner_address: burner.address,
      eip7702_auth: burner.eip7702Auth,
      destination_address: "0x000000000000000000000000000000000000dEaD",
      destination_chain: 31338,
    });
  });

  it("sends the caller's Idempotency-Key when given, and a fresh one per call otherwise", async () => {
    const client = await clientFor((_req, res) =>
      sendJson(res, 200, { id: ID, status: "pending", expires_at: 1 }),
    );
    const destination = { address: "0x000000000000000000000000000000000000dEaD", chainId: 31338 } as const;
    await createSession(client, { burner, destination, idempotencyKey: "order-42" });
    await createSession(client, { burner, destination });
    await createSession(client, { burner, destination });
    const keys = server?.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys?.[0]).toBe("order-42");
    expect(keys?.[1]).not.toBe(keys?.[2]);
  });

  it("never retries a 400, and carries the service's message", async () => {
    const client = await clientFor((_req, res) =>
      sendJson(res, 400, { error: "body.destination_chain: must be positive" }),
    );
    const err = await failure(getSession(client, { id: ID }));
    expect(err).toBeInstanceOf(ApiError);
    expect([err.kind, err.status, err.serverMessage, err.code, err.retryable]).toEqual([
      "http",
      400,
      "body.destination_chain: must be positive",
      "api_error",
      false,
    ]);
    expect(server?.requests).toHaveLength(1);
  });

  it("never retries a 404 or a 409 either", async () => {
    for (const status of [404, 409]) {
      const client = await clientFor((_req, res) => sendJson(res, status, { error: "no" }));
      expect((await failure(getSession(client, { id: ID }))).status).toBe(status);
      expect(server?.requests).toHaveLength(1);
      await server?.close();
    }
  });

  it("gives up after its attempts with the last 5xx", async () => {
    const client = await clientFor((_req, res) => res.writeHead(500).end("<html>oops</html>"));
    const err = await failure(getSession(client, { id: ID }));
    expect([err.kind, err.status, err.serverMessage, err.retryable]).toEqual(["http", 500, null, true]);
    expect(server?.requests).toHaveLength(3);
  });

  it("does not wait for a Retry-After longer than its limit: the 429 is thrown at once", async () => {
    const client = await clientFor(
      (_req, res) => sendJson(res, 429, { error: "slow down" }, { "retry-after": "120" }),
      {
        retry: { ...FAST, maxRetryAfterMs: 1000 },
      },
    );
    const err = await failure(getSession(client, { id: ID }));
    expect([err.status, err.retryAfterMs, err.retryable]).toEqual([429, 120_000, true]);
    expect(server?.requests).toHaveLength(1);
  });

  it("times out a server that never answers, with kind timeout and status 0, and retries it", async () => {
    const client = await clientFor(() => {}, { timeout: 100, retry: { ...FAST, attempts: 2 } });
    const err = await failure(getSession(client, { id: ID }));
    expect([err.kind, err.status, err.code, err.retryable]).toEqual(["timeout", 0, "network_error", true]);
    expect(server?.requests).toHaveLength(2);
  });

  it("times out a body that stops half way", async () => {
    const client = await clientFor(
      (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"id":');
      },
      { timeout: 150, retry: { ...FAST, attempts: 1 } },
    );
    expect((await failure(getSession(client, { id: ID }))).kind).toBe("timeout");
  });

  it("reports a 200 whose body is not JSON as a parse error, not retried", async () => {
    const client = await clientFor((_req, res) => res.writeHead(200).end("not json"));
    const err = await failure(getSession(client, { id: ID }));
    expect([err.kind, err.status, err.code, err.retryable]).toEqual(["parse", 200, "api_error", false]);
    expect(server?.requests).toHaveLength(1);
  });

  it("reports a refused connection as a network error with status 0, after its retries", async () => {
    let tries = 0;
    const counting: typeof fetch = (input, init) => {
      tries++;
      return fetch(input, init);
    };
    const client = createApiClient({ baseUrl: await refusedUrl(), retry: FAST, fetch: counting });
    const err = await failure(getSession(client, { id: ID }));
    expect([err.kind, err.status, err.code, err.retryable]).toEqual(["network", 0, "network_error", true]);
    expect(tries).toBe(3);
  });

  it("stops at once when the caller aborts, with the caller's reason", async () => {
    const client = await clientFor(() => {});
    const abort = new AbortController();
    const reason = new Error("user left");
    setTimeout(() => abort.abort(reason), 50);
    await expect(getSession(client, { id: ID, signal: abort.signal })).rejects.toBe(reason);
    expect(server?.requests).toHaveLength(1);
  });
});

describe("the API client's defaults and error model", () => {
  it("waits 30000 ms by default, as the interface says", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
    expect(createApiClient({ baseUrl: "http://127.0.0.1:1" }).timeout).toBe(30_000);
  });

  it("reads Retry-After as seconds or as an HTTP date, and ignores anything else", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs("2", now)).toBe(2000);
    expect(retryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("soon", now)).toBeNull();
    expect(retryAfterMs(null, now)).toBeNull();
  });

  it("gives every kind one of the interface's client error codes", () => {
    const at = { method: "GET", url: "http://x/y" };
    const codes = (["http", "network", "timeout", "parse"] as const).map(
      (kind) => new ApiError("x", { ...at, kind, status: kind === "http" ? 418 : 0 }).code,
    );
    expect(codes).toEqual(["api_error", "network_error", "network_error", "api_error"]);
    for (const code of codes) expect(CLIENT_ERROR_CODES).toContain(code);
  });
});
