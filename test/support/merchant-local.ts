import { afterEach } from "vitest";
import type { ApiError } from "../../src/client/errors.ts";
import { createMerchantClient, type MerchantClient } from "../../src/client/merchant/index.ts";
import { type Handler, type LocalServer, sendJson, serve } from "./local-http.ts";

/**
 * The merchant library's unit tests against a real local HTTP server (real sockets, the real API
 * client underneath); backoffs shortened so a retry takes milliseconds. Call at the top of a test
 * file: the server of each test is closed after it.
 */
export const SK = `sk_test_${"a".repeat(43)}`;

export function localMerchant() {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return {
    async clientFor(handler: Handler, config: { timeout?: number } = {}): Promise<MerchantClient> {
      server = await serve(handler);
      return createMerchantClient({
        baseUrl: server.url,
        secretKey: SK,
        retry: { attempts: 3, baseMs: 5, maxMs: 20 },
        ...config,
      });
    },
    /** Every request so far as [method, url, body], in arrival order. */
    requests: () => (server?.requests ?? []).map((r) => [r.method, r.url, r.body]),
    server: () => server,
  };
}

/** The error a call rejects with; a call that resolves fails the test. */
export const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected a failure");
    },
    (err: unknown) => err as ApiError,
  );

export const ok =
  (body: unknown): Handler =>
  (_req, res) =>
    sendJson(res, 200, body);
