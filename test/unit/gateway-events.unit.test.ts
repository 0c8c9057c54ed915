import { get, type IncomingMessage } from "node:http";
import { connect as tcpConnect } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionStateRecord } from "../../src/records/session-state.ts";
import { ALLOWED_ORIGIN, signedSessionBody, testGateway } from "../support/memory-gateway.ts";

/**
 * GET /sessions/:id/events over a real port (better-sse writes to the raw Node response, which
 * app.inject() does not provide). The client below only splits the received text into frames.
 */

let app: FastifyInstance | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) close();
  await app?.close();
  app = undefined;
});

interface Frame {
  comment: boolean;
  event?: string;
  id?: string;
  data?: string;
  retry?: string;
}

async function setup(env: Record<string, string> = {}) {
  const gw = await testGateway({ SSE_KEEPALIVE_MS: "100", ...env });
  app = gw.app;
  const base = await gw.app.listen({ host: "127.0.0.1", port: 0 });
  const res = await gw.app.inject({
    method: "POST",
    url: "/sessions",
    payload: JSON.stringify(await signedSessionBody()),
    headers: { "content-type": "application/json" },
  });
  const id: string = res.json().id;
  return { ...gw, base, id, current: () => gw.service.record(id) as SessionStateRecord };
}

/** A bare node:http client (no connection pool), so closing the gateway never waits on an idle socket. */
async function connect(url: string, headers: Record<string, string> = {}) {
  const req = get(url, { headers, agent: false });
  closers.push(() => req.destroy());
  const res = await new Promise<IncomingMessage>((resolve, reject) =>
    req.once("response", resolve).once("error", reject),
  );
  res.setEncoding("utf8");
  let buffer = "";
  const frames: Frame[] = [];
  const waiters = new Set<() => void>();
  res.on("data", (chunk: string) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
      frames.push(parseFrame(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
    }
    for (const wake of waiters) wake();
  });

  /** Resolves with the matching frames once there are `count` of them, or rejects after `ms`. */
  function until(match: (f: Frame) => boolean, count = 1, ms = 2000): Promise<Frame[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = frames.filter(match);
        if (found.length < count) return;
        done();
        resolve(found);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out; got ${JSON.stringify(frames)}`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  }
  const ended = new Promise<void>((resolve) => res.once("end", () => resolve()));
  return { res, frames, until, ended, close: () => req.destroy() };
}

function parseFrame(text: string): Frame {
  const frame: Frame = { comment: text.split("\n").every((l) => l.startsWith(":")) };
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    const [field, value] = [line.slice(0, colon), line.slice(colon + 1)];
    if (field === "event" || field === "id" || field === "data" || field === "retry") frame[field] = value;
  }
  return frame;
}

const isStatus = (f: Frame) => f.event === "status";
const withStatus = (r: SessionStateRecord, version: number, status: string): SessionStateRecord => ({
  version,
  session: { ...r.session, status: status as SessionStateRecord["session"]["status"] },
});

describe("GET /sessions/:id/events", () => {
  it("sends the current state at once as a `status` event with the version as id", async () => {
    const { base, id } = await setup();
    const stream = await connect(`${base}/sessions/${id}/events`);
    expect(stream.res.headers["content-type"]).toBe("text/event-stream");
    const [first] = await stream.until(isStatus);
    expect(first?.id).toBe("1");
    expect(JSON.parse(first?.data ?? "{}")).toMatchObject({ id, status: "pending" });
  });

  it("sends one event per status change, skipping same-status and older versions", async () => {
    const { base, id, service, current } = await setup();
    const stream = await connect(`${base}/sessions/${id}/events`);
    await stream.until(isStatus);
    const now = current();
    service.publish(withStatus(now, 2, "pending")); // same status: nothing to say
    service.publish(withStatus(now, 4, "detected"));
    service.publish(withStatus(now, 3, "expired")); // older than what was seen: ignored
    service.publish(withStatus(now, 5, "sweeping"));
    const events = await stream.until(isStatus, 3);
    expect(events.map((e) => [e.id, JSON.parse(e.data ?? "{}").status])).toEqual([
      ["1", "pending"],
      ["4", "detected"],
      ["5", "sweeping"],
    ]);
  });

  it("keeps the connection alive with empty comment frames", async () => {
    const { base, id } = await setup();
    const stream = await connect(`${base}/sessions/${id}/events`);
    const pings = await stream.until((f) => f.comment, 2);
    expect(pings.length).toBeGreaterThanOrEqual(2);
  });

  it("does not lose a state published between subscribing and reading the read model", async () => {
    const { base, id, service, current } = await setup();
    const read = service.sessions.get;
    service.sessions.get = async (sid) => {
      const before = await read(sid);
      if (before) service.publish(withStatus(before, before.version + 1, "detected"));
      return before;
    };
    const stream = await connect(`${base}/sessions/${id}/events`);
    const events = await stream.until(isStatus, 2);
    expect(events.map((e) => JSON.parse(e.data ?? "{}").status)).toEqual(["pending", "detected"]);
    expect(current().version).toBe(1);
  });

  it("unsubscribes when the client goes away", async () => {
    const { base, id, service } = await setup();
    const stream = await connect(`${base}/sessions/${id}/events`);
    await stream.until(isStatus);
    expect(service.listenerCount(id)).toBe(1);
    stream.close();
    for (let i = 0; i < 50 && service.listenerCount(id) > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(service.listenerCount(id)).toBe(0);
  });

  it("carries the CORS headers for an allowed origin", async () => {
    const { base, id } = await setup();
    const stream = await connect(`${base}/sessions/${id}/events`, { origin: ALLOWED_ORIGIN });
    expect(stream.res.headers["access-control-allow-origin"]).toBe(ALLOWED_ORIGIN);
  });

  it("answers 404 JSON for an unknown session and leaves no listener behind", async () => {
    const { base, service } = await setup();
    const missing = "6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f";
    const res = await fetch(`${base}/sessions/${missing}/events`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "session not found" });
    expect(service.listenerCount(missing)).toBe(0);
  });

  it("ends open streams when the gateway closes", async () => {
    const gw = await setup();
    const stream = await connect(`${gw.base}/sessions/${gw.id}/events`);
    await stream.until(isStatus);
    await gw.app.close();
    app = undefined;
    expect(gw.service.listenerCount(gw.id)).toBe(0);
  });
});

describe("GET /sessions/:id/events, bounded", () => {
  it("refuses a client's stream past SSE_MAX_STREAMS_PER_IP with 429 and Retry-After, until one closes", async () => {
    const { base, id } = await setup({ SSE_MAX_STREAMS_PER_IP: "2" });
    const first = await connect(`${base}/sessions/${id}/events`);
    const second = await connect(`${base}/sessions/${id}/events`);
    await Promise.all([first.until(isStatus), second.until(isStatus)]);
    const third = await fetch(`${base}/sessions/${id}/events`);
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({ error: expect.stringMatching(/too many open event streams/) });
    // The oldest stream ends by its lifetime (15 min by default) at the latest.
    const retryAfter = Number(third.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    first.close();
    let again = 429;
    for (let i = 0; i < 50 && again === 429; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const res = await fetch(`${base}/sessions/${id}/events`, { signal: AbortSignal.timeout(2000) });
      again = res.status;
      await res.body?.cancel();
    }
    expect(again).toBe(200);
  });

  it("a refused open (unknown session) takes no slot", async () => {
    const { base, id } = await setup({ SSE_MAX_STREAMS_PER_IP: "1" });
    const missing = "6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f";
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/sessions/${missing}/events`)).status).toBe(404);
    const stream = await connect(`${base}/sessions/${id}/events`);
    expect(stream.res.statusCode).toBe(200);
  });

  it("ends a stream after SSE_MAX_LIFETIME_MS with a retry: field, and the client reconnects", async () => {
    const { base, id, service } = await setup({ SSE_MAX_LIFETIME_MS: "1000", SSE_MAX_STREAMS_PER_IP: "1" });
    const t0 = performance.now();
    const stream = await connect(`${base}/sessions/${id}/events`);
    const [opening] = await stream.until((f) => f.retry !== undefined);
    expect(opening?.retry).toBe("2000");
    await stream.ended;
    const lived = performance.now() - t0;
    expect(lived).toBeGreaterThanOrEqual(950);
    expect(lived).toBeLessThan(3000);
    const last = stream.frames.at(-1);
    expect(last).toMatchObject({ retry: "2000" });
    expect(stream.frames.filter(isStatus)).toHaveLength(1);
    // Its slot and listener are free: the reconnect is served from the current state.
    for (let i = 0; i < 50 && service.listenerCount(id) > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(service.listenerCount(id)).toBe(0);
    const next = await connect(`${base}/sessions/${id}/events`);
    const [state] = await next.until(isStatus);
    expect(state?.id).toBe("1");
  });
});

describe("over a real port", () => {
  it("answers a request the HTTP parser rejects with 400 { error }", async () => {
    const { base } = await setup();
    const { port } = new URL(base);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = tcpConnect(Number(port), "127.0.0.1", () => socket.write("NOT HTTP\r\n\r\n"));
      let text = "";
      socket.setEncoding("utf8").on("data", (d: string) => {
        text += d;
      });
      socket.on("close", () => resolve(text)).on("error", reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toEqual({ error: "malformed HTTP request" });
  });
});
