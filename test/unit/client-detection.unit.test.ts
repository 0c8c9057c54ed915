import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { waitForDetection } from "../../src/client/actions/wait-for-detection.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { type Handler, type LocalServer, serve } from "../support/local-http.ts";

// waitForDetection reads the SSE stream through eventsource-parser: these frames arrive the way a
// network delivers them (split anywhere, CRLF line ends, data over several lines, other events,
// comments), and the library must read the same Sessions out of them.

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const DETECTED = {
  id: ID,
  status: "detected",
  error_message: null,
  source_chain_id: 31337,
  detected_token: "0xcf7ed3acca5a467e9e704c703e8d87f634fb0fc9",
  detected_amount: "25000000",
  detected_tx: `0x${"ab".repeat(32)}`,
};

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function clientFor(handler: Handler) {
  server = await serve(handler);
  return createApiClient({ baseUrl: server.url, retry: { attempts: 2, baseMs: 5, maxMs: 20 } });
}
const open = (res: ServerResponse) => res.writeHead(200, { "content-type": "text/event-stream" });

/** Writes `text` in pieces of `size` characters, a few ms apart, as a slow network would. */
async function dribble(res: ServerResponse, text: string, size: number) {
  for (let i = 0; i < text.length; i += size) {
    res.write(text.slice(i, i + size));
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe("waitForDetection over SSE", () => {
  it("reads frames split mid-line, with CRLF ends, data over two lines, comments and other events", async () => {
    const pending = JSON.stringify({ ...DETECTED, status: "pending", detected_amount: null });
    const json = JSON.stringify(DETECTED);
    const cut = json.indexOf(',"status"') + 1; // between two members: a newline there is JSON whitespace
    const [head, tail] = [json.slice(0, cut), json.slice(cut)];
    const wire =
      `retry: 2000\r\n\r\n: keep-alive\r\n\r\nevent: status\r\ndata: ${pending}\r\n\r\n` +
      `event: other\r\ndata: {"status":"detected"}\r\n\r\n` +
      // A JSON body spread over two data lines: the parser joins them with a newline, JSON does not mind.
      `event: status\r\nid: 2\r\ndata: ${head}\r\ndata: ${tail}\r\n\r\n`;
    const client = await clientFor((_req, res) => {
      open(res);
      void dribble(res, wire, 7);
    });
    const seen: string[] = [];
    const detected = await waitForDetection(client, { id: ID, onSession: (s) => seen.push(s.status) });
    expect(detected).toMatchObject(DETECTED);
    expect(seen).toEqual(["pending", "detected"]);
  });

  it("ignores an event that is not a status event, even one that looks like a Session", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      res.write(`event: status\ndata: ${JSON.stringify({ ...DETECTED, status: "pending" })}\n\n`);
      res.write(`event: message\ndata: ${JSON.stringify(DETECTED)}\n\n`);
      res.write(`data: ${JSON.stringify(DETECTED)}\n\n`);
    });
    const err = await waitForDetection(client, { id: ID, timeout: 300 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "timeout", cause: "last status pending" });
  });

  it("refuses a detected session that names no deposit, as a parse error", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      res.write(`event: status\ndata: ${JSON.stringify({ ...DETECTED, detected_token: null })}\n\n`);
    });
    await expect(waitForDetection(client, { id: ID })).rejects.toMatchObject({
      name: "ApiError",
      kind: "parse",
      code: "api_error",
    });
  });

  it("says session_expired when the session expires before a deposit", async () => {
    const client = await clientFor((_req, res) => {
      open(res);
      res.write(`event: status\ndata: ${JSON.stringify({ ...DETECTED, status: "expired" })}\n\n`);
    });
    await expect(waitForDetection(client, { id: ID })).rejects.toMatchObject({
      name: "SessionEndedError",
      code: "session_expired",
    });
  });
});
