import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { waitFor } from "./actor-host.ts";
import type { TestCa } from "./test-ca.ts";

/** One webhook as a merchant's server got it: the exact body, its signature header, its Idempotency-Key. */
export interface ReceivedWebhook {
  body: string;
  signature: string;
  key: string;
}

/**
 * A merchant's webhook endpoint: a real HTTPS server on a free local port with a certificate of the
 * test CA (the webhooks role trusts it through NODE_EXTRA_CA_CERTS), answering 200 to every POST and
 * keeping what it received, in arrival order.
 */
export interface WebhookReceiver {
  port: number;
  received: ReceivedWebhook[];
  /** The webhook with this Idempotency-Key (`<session id>:<event type>`), once it arrived. */
  arrived(key: string, timeoutMs?: number): Promise<ReceivedWebhook>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(ca: TestCa): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createHttpsServer({ cert: ca.cert, key: ca.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString("utf8"),
        signature: String(req.headers["service-signature"]),
        key: String(req.headers["idempotency-key"]),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    async arrived(key, timeoutMs = 60_000) {
      const found = () => received.find((r) => r.key === key);
      await waitFor(key, async () => (found() ? true : undefined), timeoutMs);
      return found() as ReceivedWebhook;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
