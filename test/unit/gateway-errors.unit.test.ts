import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTHORIZATION_PROBLEMS } from "../../src/chains/evm/authorization.ts";
import { REJECTION_MESSAGES } from "../../src/domain/rejections.ts";
import { ERRORS, GatewayError, replyError, toGatewayError } from "../../src/gateway/errors.ts";
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

  it("includes every domain rejection and signature check, with the domain's message", () => {
    for (const [code, message] of Object.entries(REJECTION_MESSAGES))
      expect(ERRORS[code as keyof typeof ERRORS]?.message).toBe(message);
    for (const [code, message] of Object.entries(AUTHORIZATION_PROBLEMS)) {
      expect(ERRORS[code as keyof typeof ERRORS]).toEqual({ status: 400, message, retryable: false });
    }
  });

  it("documents every code's retry advice as the registry gives it", () => {
    const advice = new Map(
      [...doc.matchAll(/^\|\s*`([a-z_]+)`\s*\|\s*\d{3}\s*\|[^|]*\|\s*([^|]*?)\s*\|$/gm)].map((m) => [
        m[1] as string,
        (m[2] as string).startsWith("yes"),
      ]),
    );
    for (const [code, spec] of Object.entries(ERRORS))
      expect([code, advice.get(code)]).toEqual([code, spec.retryable]);
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

  it("answers a refused reply from its code, whatever status the reply carries", () => {
    const refused = { status: 409, code: "session_not_found", message: "gone" };
    expect([replyError(refused)?.status, replyError(refused)?.message]).toEqual([404, "gone"]);
    expect(replyError({ status: 200, code: null, message: null })).toBeNull();
  });

  it("answers a reply it cannot read as internal, not as accepted", () => {
    expect(replyError({ status: 201, code: null, message: null })?.code).toBe("internal");
    expect(replyError({ status: 409, code: "no_such_code", message: "?" })?.code).toBe("internal");
  });

  it("keeps a registered error as it is", () => {
    const err = new GatewayError("rate_limited", "slow down");
    expect(toGatewayError(err)).toBe(err);
  });
});
