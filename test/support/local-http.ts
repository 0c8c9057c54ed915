import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on a free local port, answering with a test's handler: for testing the client
 * library's HTTP behaviour (retries, timeouts, streams) against real sockets instead of a fake fetch.
 * `requests` records every request in arrival order, with its headers and body.
 */
export interface LocalServer {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }>;
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, n: number) => void;

export async function serve(handler: Handler): Promise<LocalServer> {
  const requests: LocalServer["requests"] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString("utf8");
    });
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, res, requests.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: bound once, then released. */
export async function refusedUrl(): Promise<string> {
  const s = await serve(() => {});
  await s.close();
  return s.url;
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};
