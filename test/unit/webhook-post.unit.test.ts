import { afterEach, describe, expect, it } from "vitest";
import type { Target } from "../../src/webhooks/address-guard.ts";
import { postPinned } from "../../src/webhooks/post.ts";
import { type LocalServer, refusedUrl, serve } from "../support/local-http.ts";

// The pinned POST against real local servers: the connection goes to the checked address while the
// request names the URL's host (a name that resolves nowhere proves nothing was looked up), a
// redirect is an answer and never followed, and a silent server is cut at the total timeout.

const TIMEOUTS = { connectMs: 1000, totalMs: 1000 };
const servers: LocalServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const started = async (handler: Parameters<typeof serve>[0]) => {
  const s = await serve(handler);
  servers.push(s);
  return s;
};

/** The server's address under a name that has no DNS answer at all (.invalid is reserved). */
const pinned = (server: LocalServer, path = "/hook?x=1"): Target => {
  const port = new URL(server.url).port;
  return { url: new URL(`http://hooks.invalid:${port}${path}`), address: "127.0.0.1", family: 4 };
};

describe("postPinned", () => {
  it("connects to the checked address and sends the URL's host, path, headers and the exact body", async () => {
    const server = await started((_req, res) => res.writeHead(204).end());
    const body = '{"event_type":"payment.detected","amount":"1.50"}';
    const r = await postPinned(pinned(server), body, { "Idempotency-Key": "s:payment.detected" }, TIMEOUTS);
    expect(r).toEqual({ status: 204, error: null });
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: "POST", url: "/hook?x=1", body });
    expect(req?.headers.host).toBe(`hooks.invalid:${new URL(server.url).port}`);
    expect(req?.headers["idempotency-key"]).toBe("s:payment.detected");
  });

  it("does not follow a redirect: the 3xx is the answer, and a failure", async () => {
    const elsewhere = await started((_req, res) => res.writeHead(200).end());
    const server = await started((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/x` }).end());
    const r = await postPinned(pinned(server), "{}", {}, TIMEOUTS);
    expect(r.status).toBe(302);
    expect(r.error).toMatch(/redirect .* not followed/);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("reports a non-2xx status as a failure with the status", async () => {
    const server = await started((_req, res) => res.writeHead(500).end("boom"));
    expect(await postPinned(pinned(server), "{}", {}, TIMEOUTS)).toEqual({ status: 500, error: "HTTP 500" });
  });

  it("gives up on a server that never answers at the total timeout", async () => {
    const server = await started(() => {});
    const t0 = Date.now();
    const r = await postPinned(pinned(server), "{}", {}, { connectMs: 1000, totalMs: 300 });
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/within 300 ms/);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("takes the status of a server that streams its body without end, and does not wait for the end", async () => {
    const server = await started((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 97);
      const timer = setInterval(() => res.write(chunk), 1);
      res.on("close", () => clearInterval(timer));
    });
    expect(await postPinned(pinned(server), "{}", {}, { connectMs: 1000, totalMs: 5000 })).toEqual({
      status: 200,
      error: null,
    });
  });

  it("reports a refused connection with no status", async () => {
    const url = new URL(await refusedUrl());
    const r = await postPinned(
      { url: new URL(`http://hooks.invalid:${url.port}/`), address: "127.0.0.1", family: 4 },
      "{}",
      {},
      TIMEOUTS,
    );
    expect(r.status).toBeNull();
    expect(r.error).toMatch(/ECONNREFUSED/);
  });
});
