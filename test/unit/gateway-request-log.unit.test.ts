import { get } from "node:http";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { signedSessionBody, testGateway } from "../support/memory-gateway.ts";

// What the gateway's info-level log says of requests that carry secrets in every place a client can
// put them: the checkout stream's query string, Authorization, X-Client-Secret and Cookie. The log is
// read back from a pino destination in memory; every line is searched for each secret's text.

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const CS = `cs_test_${"C".repeat(43)}`;
const SK = `sk_test_${"S".repeat(43)}`;
const PK = `pk_test_${"P".repeat(43)}`;

async function logged() {
  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(line) });
  const gw = await testGateway({}, { logger });
  app = gw.app;
  return { ...gw, lines };
}

describe("the gateway's request log", () => {
  it("names the route and the session, never the query string or a credential header", async () => {
    const { app, lines } = await logged();
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const created = await app.inject({
      method: "POST",
      url: "/sessions",
      payload: JSON.stringify(await signedSessionBody()),
      headers: { "content-type": "application/json", authorization: `Bearer ${SK}` },
    });
    const id: string = created.json().id ?? "";
    // The checkout stream's shape: pk and client_secret in the query (an anonymous session streams).
    await new Promise<void>((resolve, reject) => {
      const req = get(
        `${base}/sessions/${id}/events?pk=${PK}&client_secret=${CS}`,
        { agent: false, headers: { cookie: `sid=${CS}` } },
        (res) => {
          res.once("data", () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.once("error", reject);
    });
    await app.inject({
      method: "GET",
      url: `/sessions/${id}?client_secret=${CS}`,
      headers: { authorization: `Bearer ${PK}`, "x-client-secret": CS },
    });
    await app.inject({
      method: "GET",
      url: `/no/such/route?key=${SK}`,
      headers: { authorization: `Bearer ${SK}` },
    });
    await app.inject({
      method: "GET",
      url: `/v1/merchant?token=${SK}`,
      headers: { authorization: `Bearer ${SK}` },
    });
    await app.close();

    const records = lines.map((l) => JSON.parse(l) as { msg: string; req?: Record<string, unknown> });
    const incoming = records.filter((r) => r.msg === "incoming request").map((r) => r.req);
    // Not vacuous: every request above was logged, with its route and session.
    expect(incoming).toHaveLength(5);
    expect(incoming).toContainEqual(
      expect.objectContaining({ method: "GET", route: "/sessions/:id/events", session_id: id }),
    );
    expect(incoming).toContainEqual(
      expect.objectContaining({ method: "GET", route: "/sessions/:id", session_id: id }),
    );
    expect(incoming).toContainEqual(expect.objectContaining({ method: "GET", route: null }));
    expect(records.filter((r) => r.msg === "request completed")).toHaveLength(5);
    for (const line of lines) {
      for (const secret of [CS, SK, PK, "cs_", "sk_", "client_secret", "Bearer", "?"])
        expect(line, line).not.toContain(secret);
    }
    for (const r of incoming)
      expect(Object.keys(r ?? {}).sort()).toEqual(
        expect.arrayContaining(["method", "remoteAddress", "route"]),
      );
  });
});
