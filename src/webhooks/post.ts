import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import type { Target } from "./address-guard.ts";

export interface PostTimeouts {
  /** TCP connect (and TLS handshake) of a new connection. */
  connectMs: number;
  /** The whole attempt: connect, request, the response to its end. */
  totalMs: number;
}

export interface PostResult {
  /** The response status; null when there was none (refused, reset, timeout, TLS). */
  status: number | null;
  /** Why it is not a success, when it is not: the failure, or a redirect we did not follow. */
  error: string | null;
}

/**
 * Keep-alive agents: a pooled socket is keyed by the host it was opened to, which is always the
 * checked address (never a name), with the TLS server name, so a reused connection goes where the
 * check said it may.
 */
const agents = {
  "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }),
  "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/** Of a merchant's answer we need the status; the rest is read (for keep-alive) only up to this. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs `body` to the target's URL over a connection to exactly `target.address`: node:http(s) gets
 * the address as its host, so it never resolves anything, while the Host header, TLS SNI and the
 * certificate check use the URL's host name. node:http never follows a redirect; a 3xx is a failure
 * like any status that is not 2xx (interface.md: redirects are disabled).
 */
export function postPinned(
  target: Target,
  body: string,
  headers: Record<string, string>,
  timeouts: PostTimeouts,
): Promise<PostResult> {
  const { url, address, family } = target;
  const tls = url.protocol === "https:";
  const name = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise<PostResult>((resolve) => {
    let settled = false;
    const done = (r: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      resolve(r);
    };
    const req = (tls ? https : http).request({
      agent: agents[tls ? "https:" : "http:"],
      host: address,
      family,
      port: url.port || (tls ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "POST",
      // SNI carries a name only; for an IP-literal URL the certificate is checked against the IP.
      ...(tls && isIP(name) === 0 ? { servername: name } : {}),
      headers: { ...headers, host: url.host, "content-length": String(Buffer.byteLength(body)) },
    });
    const total = setTimeout(() => {
      req.destroy(new Error(`no complete answer within ${timeouts.totalMs} ms`));
    }, timeouts.totalMs);
    req.on("socket", (socket) => {
      // A pooled socket is already connected; a new one gets the connect bound.
      if (!socket.connecting) return;
      const connect = setTimeout(() => {
        req.destroy(new Error(`not connected within ${timeouts.connectMs} ms`));
      }, timeouts.connectMs);
      socket.once(tls ? "secureConnect" : "connect", () => clearTimeout(connect));
      socket.once("close", () => clearTimeout(connect));
    });
    // Once the status is in, it is the answer, whatever happens to the rest of the response.
    let answered: PostResult | null = null;
    req.on("error", (err) => done(answered ?? { status: null, error: err.message }));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      answered = { status, error: statusError(status, res.headers.location) };
      const result = answered;
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        // A merchant endpoint streaming forever must not hold the attempt: the status is known.
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on("end", () => done(result));
      res.on("error", () => done(result));
      res.on("close", () => done(result));
    });
    req.end(body);
  });
}

function statusError(status: number, location: string | undefined): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400)
    return `HTTP ${status}: redirect to ${location ?? "(no location)"} not followed`;
  return `HTTP ${status}`;
}
