import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { bearerToken, type CheckoutResource, createGuards, operatorGuard } from "../../src/gateway/auth.ts";
import type { GatewayError } from "../../src/gateway/errors.ts";
import { hashSecret, issueKey, newSecret } from "../../src/gateway/merchant-keys.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";

// The guards over an in-memory key table: the lookup is the guards' only dependency.
const rows = new Map<string, KeyByHash>();
function register(merchantId: string, kind: "publishable" | "secret", revoked = false) {
  const { key, issued } = issueKey(kind, "test");
  rows.set(issued.hash, {
    ...issued,
    merchantId,
    createdAt: 1,
    revokedAt: revoked ? 2 : null,
  });
  return key;
}
const guards = createGuards({ keys: { keyByHash: async (h) => rows.get(h) ?? null }, mode: "test" });
const request = (headers: Record<string, string>) => ({ headers }) as unknown as FastifyRequest;

async function status(p: Promise<unknown>): Promise<[number, string | undefined]> {
  try {
    await p;
    return [200, undefined];
  } catch (err) {
    const e = err as GatewayError;
    return [e.status, e.headers["www-authenticate"]];
  }
}

const pkA = register("mer_a", "publishable");
const skA = register("mer_a", "secret");
const revokedSkA = register("mer_a", "secret", true);
const pkB = register("mer_b", "publishable");
const cs = newSecret("cs", "test");
const sessionOfA: CheckoutResource = { merchantId: "mer_a", clientSecretHash: hashSecret(cs) };

describe("secret-key guard (/v1/*)", () => {
  it("accepts an active sk_ and names its merchant", async () => {
    await expect(guards.secretKey(request({ authorization: `Bearer ${skA}` }))).resolves.toMatchObject({
      merchantId: "mer_a",
      kind: "secret",
    });
  });

  it.each([
    ["missing", {}],
    ["not Bearer", { authorization: `Basic ${skA}` }],
    ["malformed", { authorization: "Bearer sk_test_nope" }],
    ["other mode", { authorization: `Bearer ${skA.replace("_test_", "_live_")}` }],
    ["unknown", { authorization: `Bearer ${newSecret("sk", "test")}` }],
    ["revoked", { authorization: `Bearer ${revokedSkA}` }],
    ["wrong type (pk_)", { authorization: `Bearer ${pkA}` }],
    ["wrong type (cs_)", { authorization: `Bearer ${cs}` }],
  ])("%s: 401 with WWW-Authenticate: Bearer", async (_, headers) => {
    expect(await status(guards.secretKey(request(headers)))).toEqual([401, "Bearer"]);
  });
});

describe("checkout guard (pk_ + cs_)", () => {
  const checkout = (headers: Record<string, string>, session: CheckoutResource | null = sessionOfA) =>
    status(guards.checkout(request(headers), session));

  it("accepts the merchant's pk_ with the session's client secret", async () => {
    expect(await checkout({ authorization: `Bearer ${pkA}`, "x-client-secret": cs })).toEqual([
      200,
      undefined,
    ]);
  });

  it("401 for a missing or malformed client secret, or an sk_ in place of the pk_", async () => {
    expect(await checkout({ authorization: `Bearer ${pkA}` })).toEqual([401, "Bearer"]);
    expect(await checkout({ authorization: `Bearer ${pkA}`, "x-client-secret": "cs_x" })).toEqual([
      401,
      "Bearer",
    ]);
    expect(await checkout({ authorization: `Bearer ${skA}`, "x-client-secret": cs })).toEqual([
      401,
      "Bearer",
    ]);
  });

  it("403 for another client secret on the merchant's own session", async () => {
    const other = newSecret("cs", "test");
    expect(await checkout({ authorization: `Bearer ${pkA}`, "x-client-secret": other })).toEqual([
      403,
      undefined,
    ]);
  });

  it("404 for another merchant's session, an anonymous one, or none", async () => {
    const headers = { authorization: `Bearer ${pkB}`, "x-client-secret": cs };
    expect(await checkout(headers)).toEqual([404, undefined]);
    expect(
      await checkout(
        { ...headers, authorization: `Bearer ${pkA}` },
        { merchantId: null, clientSecretHash: null },
      ),
    ).toEqual([404, undefined]);
    expect(await checkout({ ...headers, authorization: `Bearer ${pkA}` }, null)).toEqual([404, undefined]);
  });

  it("the stream takes the same two as query parameters", async () => {
    expect(await status(guards.checkoutStream({ pk: pkA, client_secret: cs }, sessionOfA))).toEqual([
      200,
      undefined,
    ]);
    expect(await status(guards.checkoutStream({ client_secret: cs }, sessionOfA))).toEqual([401, "Bearer"]);
  });
});

describe("operator guard and the Bearer header", () => {
  it("accepts exactly the operator secret", () => {
    const guard = operatorGuard("x".repeat(40));
    expect(() => guard(request({ authorization: `Bearer ${"x".repeat(40)}` }))).not.toThrow();
    expect(() => guard(request({ authorization: `Bearer ${"x".repeat(39)}` }))).toThrow(
      /invalid operator secret/,
    );
    expect(() => guard(request({}))).toThrow(/missing operator secret/);
  });

  it("reads the token of a Bearer header, scheme in any case, and nothing else", () => {
    expect(bearerToken("Bearer abc")).toBe("abc");
    expect(bearerToken("bearer abc")).toBe("abc");
    expect(bearerToken("Bearer")).toBeNull();
    expect(bearerToken("Bearer a b")).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });
});
