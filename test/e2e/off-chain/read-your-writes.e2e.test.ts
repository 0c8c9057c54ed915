// Read-your-writes across gateways: two gateway processes (`src/cli.ts gateway` children, each with
// its own bus, cache and replied versions), the actors and the projector in this process. A POST
// answered by one gateway is at once readable on the other, over GET and over SSE.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../../deploy/local/chains.ts";
import { type Child, startChild } from "../../support/child-process.ts";
import { eachConcurrently } from "../../support/concurrently.ts";
import { GATEWAY_READY, LOADED_GATEWAY_ENV, signedSessionBodies } from "../../support/gateway-children.ts";
import { json } from "../../support/http.ts";
import { startTestService, type TestService } from "../../support/service.ts";
import { openSse } from "../../support/sse-client.ts";

const POSTS = 1_000;
/** Clients at once, each doing POST on A then GET on B: enough to keep the projector busy. */
const LANES = 8;
const SSE_CONNECTS = 40;

let service: TestService;
let chains: { source: LocalChain; dest: LocalChain };
const gateways: Child[] = [];

beforeAll(async () => {
  service = await startTestService({ roles: ["actors", "projector"] });
  const [source, dest] = service.stack.chains as [LocalChain, LocalChain];
  chains = { source, dest };
  await Promise.all(
    ["gateway-a", "gateway-b"].map((name) =>
      startChild(name, ["src/cli.ts", "gateway"], {
        env: LOADED_GATEWAY_ENV,
        ready: GATEWAY_READY,
        timeoutMs: 120_000,
        started: (c) => gateways.push(c),
      }),
    ),
  );
}, 180_000);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.stop()));
  await service?.stop();
});

const [a, b] = [() => gateways[0] as Child, () => gateways[1] as Child];

const signedBodies = (n: number) => signedSessionBodies(n, chains.source, chains.dest);

async function createOn(gateway: Child, body: string): Promise<string> {
  const res = await fetch(`${gateway.ready}/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const created = (await json(res)) as { id: string };
  expect(res.status, JSON.stringify(created)).toBe(200);
  return created.id;
}

describe("read-your-writes across two gateway processes", () => {
  it("1,000 POSTs on gateway A, each followed at once by a GET on gateway B: no 404, never older", async () => {
    const bodies = await signedBodies(POSTS);
    const seenOnB = new Map<string, { status: number; body: unknown }>();
    await eachConcurrently(bodies, LANES, async (body) => {
      const id = await createOn(a(), body);
      const res = await fetch(`${b().ready}/sessions/${id}`);
      seenOnB.set(id, { status: res.status, body: await json(res) });
    });

    const statuses = new Map<number, number>();
    for (const { status } of seenOnB.values()) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    expect(Object.fromEntries(statuses)).toEqual({ 200: POSTS });

    // Nothing changes these sessions after their creation, and A never answers older than the
    // version it replied: B's answer must be that same state, not an earlier one.
    await eachConcurrently(seenOnB, LANES, async ([id, onB]) => {
      const res = await fetch(`${a().ready}/sessions/${id}`);
      expect(res.status).toBe(200);
      expect(onB.body).toEqual(await json(res));
      expect(onB.body).toMatchObject({ id, status: "pending" });
    });
  }, 600_000);

  it("SSE connects on gateway B right after POSTs on gateway A open with the created session", async () => {
    // Several at once, as for the GETs: a busy projector is when B would answer 404.
    await eachConcurrently(await signedBodies(SSE_CONNECTS), LANES, async (body) => {
      const id = await createOn(a(), body);
      const sse = await openSse(`${b().ready}/sessions/${id}/events`);
      try {
        expect(sse.status).toBe(200);
        const first = await sse.waitFor((e) => e.event === "status", 5_000);
        expect(JSON.parse(first.data)).toMatchObject({ id, status: "pending" });
        // A never answers older than the version it replied: B opened with that version (the id).
        const onA = await openSse(`${a().ready}/sessions/${id}/events`);
        try {
          const current = await onA.waitFor((e) => e.event === "status", 5_000);
          expect(first.id).toBe(current.id);
        } finally {
          onA.close();
        }
      } finally {
        sse.close();
      }
    });
  }, 120_000);
});
