import { describe, expect, it } from "vitest";
import { createSessionBodySchema, sessionParamsSchema } from "../../src/api/sessions.ts";
import { badSessionBodies, wellFormedSessionBody } from "../support/bad-session-bodies.ts";

const corpus = badSessionBodies();

describe("POST /sessions body schema", () => {
  it("accepts the well-formed bases the corpus mutates", () => {
    expect(createSessionBodySchema.safeParse(wellFormedSessionBody()).success).toBe(true);
    expect(createSessionBodySchema.safeParse(wellFormedSessionBody("stealth_request")).success).toBe(true);
  });

  it("is driven by a generated corpus of at least 1,000 malformed bodies", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(new Set(corpus.map((c) => c.name)).size).toBe(corpus.length);
  });

  it("rejects every malformed body in the corpus", () => {
    const accepted = corpus
      .filter((c) => createSessionBodySchema.safeParse(c.body).success)
      .map((c) => c.name);
    expect(accepted).toEqual([]);
  });

  it("rejects every corpus body again after a JSON round trip (what the HTTP replay sends)", () => {
    const accepted = corpus
      .filter((c) => c.body !== undefined)
      .filter((c) => createSessionBodySchema.safeParse(JSON.parse(JSON.stringify(c.body))).success)
      .map((c) => c.name);
    expect(accepted).toEqual([]);
  });

  it("lower-cases addresses and defaults the flow to p2p_request", () => {
    const body = wellFormedSessionBody();
    delete body.flow;
    body.destination_address = `0x${"AB".repeat(20)}`;
    const parsed = createSessionBodySchema.parse(body);
    expect(parsed.flow).toBe("p2p_request");
    expect(parsed.burner_address).toBe(`0x${"1a".repeat(20)}`);
    expect(parsed.destination_address).toBe(`0x${"ab".repeat(20)}`);
  });

  it("names the stealth field when flow and stealth disagree", () => {
    const body = wellFormedSessionBody("stealth_request");
    delete body.stealth;
    const result = createSessionBodySchema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["stealth"]);
  });

  it("reports an unknown key, even __proto__ as an own key", () => {
    const result = createSessionBodySchema.safeParse(JSON.parse(`{"__proto__": {"polluted": 1}, "a": 1}`));
    expect(result.success).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("session id parameter", () => {
  it("accepts a UUID in any case and lower-cases it", () => {
    const id = "6F1C1D9E-8F2A-4B7C-9D1E-2A3B4C5D6E7F";
    expect(sessionParamsSchema.parse({ id }).id).toBe(id.toLowerCase());
  });

  it.each([
    "abc",
    "",
    "6f1c1d9e8f2a4b7c9d1e2a3b4c5d6e7f",
    "6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f0",
    "../etc/passwd",
  ])("rejects %j", (id) => {
    expect(sessionParamsSchema.safeParse({ id }).success).toBe(false);
  });
});
