import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTHORIZATION_PROBLEMS } from "../../src/chains/evm/authorization.ts";
import { REJECTIONS } from "../../src/domain/rejections.ts";
import { ERRORS, GatewayError, toGatewayError } from "../../src/gateway/errors.ts";
import { ReplyTimeoutError } from "../../src/gateway/ports.ts";

const doc = readFileSync(new URL("../../docs/API.md", import.meta.url), "utf8");
/** Rows of the docs' error table: `| \`code\` | status | ...`. */
const documented = new Map(
  [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*(\d{3})\s*\|/gm)].map((m) => [m[1] as string, Number(m[2])]),
);

describe("error registry", () => {
  it.each(Object.entries(ERRORS))("documents %s in docs/API.md with its status", (code, spec) => {
    expect(documented.get(code)).toBe(spec.status);
  });

  it("documents no code the registry does not have", () => {
    expect([...documented.keys()].filter((code) => !(code in ERRORS))).toEqual([]);
  });

  it("includes every domain rejection and signature check, with the domain's status", () => {
    for (const [code, spec] of Object.entries(REJECTIONS))
      expect(ERRORS[code as keyof typeof ERRORS]).toEqual(spec);
    for (const code of Object.keys(AUTHORIZATION_PROBLEMS)) {
      expect(ERRORS[code as keyof typeof ERRORS]?.status).toBe(400);
    }
  });

  it("answers unknown errors as internal, never with their message", () => {
    const err = toGatewayError(new Error("secret detail"));
    expect([err.code, err.status, err.message]).toEqual(["internal", 500, "internal error"]);
  });

  it("answers an owner timeout as a retryable 503", () => {
    const err = toGatewayError(new ReplyTimeoutError("late"));
    expect([err.code, err.status, err.retryable, err.headers["retry-after"]]).toEqual([
      "reply_timeout",
      503,
      true,
      "1",
    ]);
  });

  it("keeps a registered error as it is", () => {
    const err = new GatewayError("rate_limited", "slow down");
    expect(toGatewayError(err)).toBe(err);
  });
});
