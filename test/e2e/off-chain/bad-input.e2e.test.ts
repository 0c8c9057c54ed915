import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { badSessionBodies } from "../../support/bad-session-bodies.ts";
import { eachConcurrently } from "../../support/concurrently.ts";
import { answerOf, isClientError, json } from "../../support/http.ts";
import { startTestService, type TestService } from "../../support/service.ts";

let service: TestService;

beforeAll(async () => {
  // A burst large enough for the corpus: this file tests validation, rate-limit.e2e tests the limiter.
  service = await startTestService({ env: { RATE_LIMIT_BURST: "1000000", RATE_LIMIT_PER_SECOND: "100000" } });
});
afterAll(async () => {
  await service?.stop();
});

async function endOffsets() {
  const [commands, events] = await Promise.all([
    stableEndOffsets(service.kafka, TOPIC.sessionCommands),
    stableEndOffsets(service.kafka, TOPIC.sessionEvents),
  ]);
  const sum = (m: Map<number, bigint>) => [...m.values()].reduce((a, b) => a + b, 0n);
  return { commands: sum(commands), events: sum(events) };
}

/** Raw request bodies that JSON.stringify cannot produce: broken JSON, pollution keys as text, odd types. */
const RAW_CASES: Array<{ name: string; body: string; contentType?: string; expected?: number }> = [
  { name: "truncated JSON", body: '{"burner_address": "0x' },
  { name: "trailing garbage", body: '{"a":1} xyz' },
  { name: "__proto__ key", body: '{"__proto__": {"polluted": true}, "burner_address": "0x"}' },
  { name: "nested __proto__", body: '{"eip7702_auth": {"__proto__": {"polluted": true}}}' },
  { name: "constructor.prototype", body: '{"constructor": {"prototype": {"polluted": true}}}' },
  { name: "empty body", body: "" },
  { name: "not JSON at all", body: "hello" },
  {
    name: "form encoded",
    body: "burner_address=0x1",
    contentType: "application/x-www-form-urlencoded",
    expected: 415,
  },
  { name: "text/plain", body: "{}", contentType: "text/plain", expected: 415 },
  { name: "over the body limit", body: JSON.stringify({ pad: "x".repeat(200_000) }), expected: 413 },
];

describe("bad input on POST /sessions", () => {
  it("every one of 1,000+ malformed bodies gets a 4xx JSON error, none a 5xx, and nothing is created", async () => {
    const corpus = badSessionBodies();
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    const before = await endOffsets();

    const failures: string[] = [];
    const requests = corpus.map((c) => ({ name: c.name, text: JSON.stringify(c.body) ?? "null" }));
    await eachConcurrently(requests, 16, async (c) => {
      const res = await fetch(`${service.url}/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: c.text,
      });
      const answer = await answerOf(res);
      if (!isClientError(answer)) failures.push(`${c.name}: ${answer.status} ${answer.text.slice(0, 120)}`);
    });
    expect(failures).toEqual([]);

    // Give a stray command every chance to show up before comparing.
    await new Promise((r) => setTimeout(r, 1000));
    expect(await endOffsets()).toEqual(before);
  });

  it("raw malformed, polluting, oversized and wrongly typed bodies are refused with the right status", async () => {
    const before = await endOffsets();
    for (const c of RAW_CASES) {
      const res = await fetch(`${service.url}/sessions`, {
        method: "POST",
        headers: { "content-type": c.contentType ?? "application/json" },
        body: c.body,
      });
      const body = await json(res);
      expect({ name: c.name, status: res.status, error: typeof body.error }).toEqual({
        name: c.name,
        status: c.expected ?? 400,
        error: "string",
      });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await endOffsets()).toEqual(before);
  });

  it("a malformed session id is refused on GET without a 500", async () => {
    for (const id of ["not-a-uuid", "1", "' OR 1=1 --", "%00", "a".repeat(300)]) {
      const res = await fetch(`${service.url}/sessions/${encodeURIComponent(id)}`);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof (await json(res)).error).toBe("string");
    }
  });
});
