import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/client/merchant/verify-webhook.ts";
import { newWebhookSecret, signatureHeader, signatureV1 } from "../../src/webhooks/signing.ts";

// The worker's signature (node:crypto) and the merchant's verify (WebCrypto) are two implementations of
// one rule: hex(HMAC-SHA256(secret, t + "." + raw_body)). A fixed vector (computed with
// `openssl dgst -sha256 -hmac`) pins the rule; the round trips pin that both sides agree on it.

const SECRET = "whsec_test_secret";
const BODY = '{"event_type":"payment.succeeded","session_id":"s1"}';
const T = 1_700_000_000;
const NOW = T * 1000;

describe("the worker's signature", () => {
  it("is hex HMAC-SHA256 of t.body under the whole secret string", () => {
    expect(signatureV1(SECRET, T, BODY)).toBe(
      "1e27a3c05a772ab4534a4c9eaf3917a024c0f28d5a990e4406d7ceb5f34f8553",
    );
  });

  it("is sent as t=<unix seconds>,v1=<hex>, signed at the attempt's time", () => {
    expect(signatureHeader(SECRET, BODY, NOW + 999)).toBe(`t=${T},v1=${signatureV1(SECRET, T, BODY)}`);
  });

  it("signs bytes and their text alike", () => {
    expect(signatureV1(SECRET, T, new TextEncoder().encode(BODY))).toBe(signatureV1(SECRET, T, BODY));
  });

  it("makes whsec_ secrets of 32 random bytes", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(a);
  });
});

describe("verifyWebhook", () => {
  const header = signatureHeader(SECRET, BODY, NOW);

  it("returns the body of a delivery signed by the worker, from text or raw bytes", async () => {
    await expect(verifyWebhook({ payload: BODY, header, secret: SECRET, now: NOW })).resolves.toEqual({
      event_type: "payment.succeeded",
      session_id: "s1",
    });
    const bytes = new TextEncoder().encode(BODY);
    await expect(verifyWebhook({ payload: bytes, header, secret: SECRET, now: NOW })).resolves.toMatchObject({
      event_type: "payment.succeeded",
    });
  });

  it.each([
    ["a changed body", { payload: BODY.replace("s1", "s2") }],
    ["re-serialised JSON (not the bytes received)", { payload: JSON.stringify(JSON.parse(BODY), null, 1) }],
    ["another secret", { secret: "whsec_other" }],
    ["no header", { header: undefined }],
    ["an empty header", { header: "" }],
    ["a header without v1", { header: `t=${T}` }],
    ["a header without t", { header: `v1=${signatureV1(SECRET, T, BODY)}` }],
    ["a v1 that is not 64 hex digits", { header: `t=${T},v1=${signatureV1(SECRET, T, BODY).slice(2)}` }],
    ["a signature for another t", { header: `t=${T + 1},v1=${signatureV1(SECRET, T, BODY)}` }],
    ["a timestamp 301 s old", { now: NOW + 301_000 }],
    ["a timestamp 301 s ahead", { now: NOW - 301_000 }],
    ["a narrower window", { now: NOW + 61_000, toleranceSeconds: 60 }],
  ])("rejects %s with verification_failed", async (_what, change) => {
    await expect(
      verifyWebhook({ payload: BODY, header, secret: SECRET, now: NOW, ...change }),
    ).rejects.toMatchObject({ code: "verification_failed" });
  });

  it("accepts a timestamp exactly 300 s away, past or future", async () => {
    for (const now of [NOW + 300_000, NOW - 300_000])
      await expect(verifyWebhook({ payload: BODY, header, secret: SECRET, now })).resolves.toBeTruthy();
  });

  it("accepts any of several v1 entries (a secret rotation signs with both)", async () => {
    const old = signatureV1("whsec_old", T, BODY);
    const rotated = `t=${T},v1=${old},v1=${signatureV1(SECRET, T, BODY)}`;
    await expect(
      verifyWebhook({ payload: BODY, header: rotated, secret: SECRET, now: NOW }),
    ).resolves.toBeTruthy();
    await expect(
      verifyWebhook({ payload: BODY, header: rotated, secret: "whsec_old", now: NOW }),
    ).resolves.toBeTruthy();
  });

  it("rejects a signed payload that is not a webhook body", async () => {
    const body = "[1,2]";
    await expect(
      verifyWebhook({ payload: body, header: signatureHeader(SECRET, body, NOW), secret: SECRET, now: NOW }),
    ).rejects.toMatchObject({ code: "verification_failed" });
  });

  it("is asynchronous: a forgery is only refused once awaited", async () => {
    const pending = verifyWebhook({ payload: BODY, header: "t=1,v1=00", secret: SECRET, now: NOW });
    // What code that forgets `await` sees: a truthy promise, the reason the interface warns about it.
    expect(pending).toBeInstanceOf(Promise);
    await expect(pending).rejects.toMatchObject({ code: "verification_failed" });
  });
});
