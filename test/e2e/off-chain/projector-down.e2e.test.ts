// The write path does not wait for the projector (docs/DESIGN.md, "The write path's critical path"):
// the actors commit each state on session.state with its events, and every gateway finds it there.
// The projector runs as its own process and is killed (-9) under load: POSTs on gateway A go on
// answering 200, and GETs on gateway B find each session at once, while nothing writes Cassandra.
// Started again, the projector catches up, and a gateway started afterwards reads every session.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../../deploy/local/chains.ts";
import { type Child, startChild } from "../../support/child-process.ts";
import { eachConcurrently } from "../../support/concurrently.ts";
import { GATEWAY_READY, LOADED_GATEWAY_ENV, signedSessionBodies } from "../../support/gateway-children.ts";
import { json } from "../../support/http.ts";
import { startTestService, type TestService } from "../../support/service.ts";

const BEFORE_KILL = 100;
const AFTER_KILL = 300;
const LANES = 8;
const PROJECTOR_READY = /^projector\s+(.*)$/;

let service: TestService;
let source: LocalChain;
let dest: LocalChain;
const children: Child[] = [];

const start = (name: string, role: string, ready: RegExp) =>
  startChild(name, ["src/cli.ts", role], {
    env: LOADED_GATEWAY_ENV,
    ready,
    timeoutMs: 120_000,
    started: (c) => children.push(c),
  });

beforeAll(async () => {
  service = await startTestService({ roles: ["actors"] });
  [source, dest] = service.stack.chains as [LocalChain, LocalChain];
}, 180_000);
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await service?.stop();
});

/** POST on `writer`, then at once GET on `reader`: both answers, for the caller to judge. */
async function createThenRead(writer: Child, reader: Child, body: string) {
  const posted = await fetch(`${writer.ready}/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const created = (await json(posted)) as { id: string };
  const read = await fetch(`${reader.ready}/sessions/${created.id}`);
  return { post: posted.status, created, get: read.status, read: await json(read) };
}

describe("the write path with the projector killed", () => {
  it("answers every POST and finds every session on another gateway while the projector is down", async () => {
    const projector = await start("projector", "projector", PROJECTOR_READY);
    const [a, b] = await Promise.all([
      start("gateway-a", "gateway", GATEWAY_READY),
      start("gateway-b", "gateway", GATEWAY_READY),
    ]);
    const bodies = await signedSessionBodies(BEFORE_KILL + AFTER_KILL, source, dest);
    const outcomes: Array<Awaited<ReturnType<typeof createThenRead>>> = [];
    let killedAfter = -1;
    await eachConcurrently(bodies, LANES, async (body) => {
      // Under load: the kill lands while the other lanes' requests are in flight.
      if (outcomes.length === BEFORE_KILL && killedAfter < 0) {
        killedAfter = outcomes.length;
        process.kill(projector.pid, "SIGKILL");
      }
      outcomes.push(await createThenRead(a, b, body));
    });
    expect(killedAfter).toBe(BEFORE_KILL);
    await expect.poll(() => projector.exited()).toBe("SIGKILL");

    const tally = (pick: (o: (typeof outcomes)[number]) => number) => {
      const counts: Record<number, number> = {};
      for (const o of outcomes) counts[pick(o)] = (counts[pick(o)] ?? 0) + 1;
      return counts;
    };
    const total = BEFORE_KILL + AFTER_KILL;
    expect(tally((o) => o.post)).toEqual({ 200: total });
    expect(tally((o) => o.get)).toEqual({ 200: total });
    for (const o of outcomes) expect(o.read).toMatchObject(o.created);

    // The projector again: it catches up with the journal before it says it is up, and a gateway
    // started after all this (nothing of these sessions in its memory) reads each from Cassandra.
    await start("projector-again", "projector", PROJECTOR_READY);
    const cold = await start("gateway-c", "gateway", GATEWAY_READY);
    const onC: Record<number, number> = {};
    await eachConcurrently(outcomes, LANES, async (o) => {
      const res = await fetch(`${cold.ready}/sessions/${o.created.id}`);
      onC[res.status] = (onC[res.status] ?? 0) + 1;
      if (res.status === 200) expect(await json(res)).toMatchObject(o.created);
    });
    expect(onC).toEqual({ 200: total });
  }, 600_000);
});
