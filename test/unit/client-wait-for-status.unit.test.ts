import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { hasReached, waitForStatus } from "../../src/client/actions/wait-for-status.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { ApiError, SessionEndedError } from "../../src/client/errors.ts";
import type { SessionStatus } from "../../src/client/types.ts";
import { type Handler, type LocalServer, sendJson, serve } from "../support/local-http.ts";

// waitForStatus against a real local server that speaks SSE the way the gateway does (docs/API.md):
// `retry:`, `event:status` frames with the Session as data, `:` keep-alive comments.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(handler: Handler) {
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: { attempts: 2, baseMs: 5, maxMs: 20 } });
}

const open = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  res.write("retry:2000\n\n");
};
const status = (res: ServerResponse, s: SessionStatus, extra: Record<string, unknown> = {}) =>
  res.write(
    `event:status\nid:1\ndata:${JSON.stringify({ id: ID, status: s, error_message: null, ...extra })}\n\n`,
  );

describe("waitForStatus", () => {
  it("resolves with the Session once the stream says detected, and reports each state on the way", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      status(res, "pending");
      res.write(":\n\n");
      setTimeout(() => status(res, "detected", { detected_amount: "25000000" }), 30);
    });
    const seen: string[] = [];
    const session = await waitForStatus(client, {
      id: ID,
      status: "detected",
      onSession: (s) => seen.push(s.status),
    });
    expect(session).toMatchObject({ id: ID, status: "detected", detected_amount: "25000000" });
    expect(seen).toEqual(["pending", "detected"]);
    expect(server?.requests[0]).toMatchObject({ url: `/sessions/${ID}/events` });
    expect(server?.requests[0]?.headers.accept).toBe("text/event-stream");
  });

  it("counts a later status on the way to settlement as reached", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      status(res, "sweeping");
    });
    await expect(waitForStatus(client, { id: ID, status: "detected" })).resolves.toMatchObject({
      status: "sweeping",
    });
  });

  it("opens the stream again when it ends, and finds the state it missed", async () => {
    const client = await clientFor((_req, res, n) => {
      open(res);
      status(res, n === 1 ? "pending" : "detected");
      if (n === 1) res.end();
    });
    await expect(waitForStatus(client, { id: ID, status: "detected" })).resolves.toMatchObject({
      status: "detected",
    });
    expect(server?.requests).toHaveLength(2);
  });

  it("opens the stream again when it goes silent past the idle timeout", async () => {
    const client = await clientFor((_req, res, n) => {
      open(res);
      status(res, n === 1 ? "pending" : "detected");
    });
    const session = await waitForStatus(client, { id: ID, status: "detected", idleTimeout: 100 });
    expect(session.status).toBe("detected");
    expect(server?.requests).toHaveLength(2);
  });

  it("retries a 503 on connect", async () => {
    const client = await clientFor((_req, res, n) => {
      if (n === 1) return sendJson(res, 503, { error: "shutting down" });
      open(res);
      status(res, "detected");
    });
    await expect(waitForStatus(client, { id: ID, status: "detected" })).resolves.toMatchObject({
      status: "detected",
    });
  });

  it("fails at once on a 404, without retrying", async () => {
    const client = await clientFor((_req, res) => sendJson(res, 404, { error: "session not found" }));
    const err = await waitForStatus(client, { id: ID, status: "detected" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ kind: "http", status: 404, serverMessage: "session not found" });
    expect(server?.requests).toHaveLength(1);
  });

  it("rejects with session_expired when the session expires instead", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      status(res, "pending");
      setTimeout(() => status(res, "expired"), 20);
    });
    const err = await waitForStatus(client, { id: ID, status: "detected" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SessionEndedError);
    expect(err).toMatchObject({ code: "session_expired", retryable: false, session: { status: "expired" } });
  });

  it("rejects a failed session with its error message", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      status(res, "failed", { error_message: "bridge expired" });
    });
    const err = await waitForStatus(client, { id: ID, status: "swept" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "unknown", shortMessage: expect.stringContaining("bridge expired") });
  });

  it("times out with kind timeout and status 0, naming the last status", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      status(res, "pending");
    });
    const err = await waitForStatus(client, { id: ID, status: "detected", timeout: 150 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      kind: "timeout",
      status: 0,
      code: "network_error",
      cause: "last status pending",
    });
  });

  it("rejects with the caller's reason when aborted, and closes the stream", async () => {
    let closed = false;
    const client = await clientFor((req, res) => {
      req.socket.on("close", () => {
        closed = true;
      });
      open(res);
      status(res, "pending");
    });
    const abort = new AbortController();
    const reason = new Error("payer closed the page");
    setTimeout(() => abort.abort(reason), 50);
    await expect(waitForStatus(client, { id: ID, status: "detected", signal: abort.signal })).rejects.toBe(
      reason,
    );
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
  });

  it("reports an event that is not a Session as a parse error", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      res.write("event:status\ndata:not json\n\n");
    });
    await expect(waitForStatus(client, { id: ID, status: "detected" })).rejects.toMatchObject({
      kind: "parse",
    });
  });
});

describe("hasReached", () => {
  it("follows the way to settlement and nothing else", () => {
    expect(hasReached("detected", "detected")).toBe(true);
    expect(hasReached("swept", "detected")).toBe(true);
    expect(hasReached("pending", "detected")).toBe(false);
    expect(hasReached("expired", "detected")).toBe(false);
    expect(hasReached("detected", "expired")).toBe(false);
    expect(hasReached("expired", "expired")).toBe(true);
  });
});
