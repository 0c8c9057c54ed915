import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  hashSecret,
  issueClientSecret,
  issueKey,
  keyPrefix,
  legacyMerchantId,
  newMerchantId,
  newSecret,
  sameHash,
} from "../../src/gateway/merchant-keys.ts";

describe("merchant keys", () => {
  it("is prefix, mode and 32 random bytes in base64url", () => {
    const key = newSecret("sk", "test");
    expect(key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice("sk_test_".length), "base64url")).toHaveLength(32);
    expect(newSecret("sk", "test")).not.toBe(key);
  });

  it("reads the type of a well-formed key of the server's mode only", () => {
    expect(keyPrefix(newSecret("pk", "live"), "live")).toBe("pk");
    expect(keyPrefix(newSecret("cs", "test"), "test")).toBe("cs");
    expect(keyPrefix(newSecret("sk", "live"), "test")).toBeNull();
    expect(keyPrefix(`${newSecret("sk", "test")}x`, "test")).toBeNull();
    expect(keyPrefix("sk_test_short", "test")).toBeNull();
    expect(keyPrefix(`rk_test_${"a".repeat(43)}`, "test")).toBeNull();
  });

  it("hashes with SHA-256 and compares hashes of any length safely", () => {
    const key = newSecret("sk", "test");
    const hash = hashSecret(key);
    expect(hash).toBe(createHash("sha256").update(key).digest("hex"));
    expect(sameHash(hash, hashSecret(key))).toBe(true);
    expect(sameHash(hash, hashSecret(newSecret("sk", "test")))).toBe(false);
    expect(sameHash(hash, hash.slice(1))).toBe(false);
  });

  it("keeps only the hash of a secret key, and the publishable key in clear", () => {
    const sk = issueKey("secret", "test");
    expect(sk.issued).toMatchObject({ kind: "secret", hash: hashSecret(sk.key), publishable: null });
    expect(sk.issued.hint).toBe(sk.key.slice(-4));
    expect(JSON.stringify(sk.issued)).not.toContain(sk.key);
    const pk = issueKey("publishable", "live");
    expect(pk.key).toMatch(/^pk_live_/);
    expect(pk.issued.publishable).toBe(pk.key);
  });

  it("issues a client secret with the hash the checkout guard compares against", () => {
    const { secret, hash } = issueClientSecret("test");
    expect(keyPrefix(secret, "test")).toBe("cs");
    expect(hash).toBe(hashSecret(secret));
  });

  it("gives new merchants random ids of the route's shape, never one derived from anything", () => {
    const ids = Array.from({ length: 1000 }, newMerchantId);
    for (const id of ids) expect(id).toMatch(/^mer_[0-9a-f]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("still finds a merchant of before random ids by its e-mail, whatever its case and space", () => {
    expect(legacyMerchantId(" Shop@Example.TEST ")).toBe(legacyMerchantId("shop@example.test"));
    expect(legacyMerchantId("a@example.test")).not.toBe(legacyMerchantId("b@example.test"));
    expect(legacyMerchantId("a@example.test")).toMatch(/^mer_[0-9a-f]{24}$/);
  });
});
