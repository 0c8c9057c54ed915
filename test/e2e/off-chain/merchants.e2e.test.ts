import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { legacyMerchantId, newMerchantId } from "../../../src/gateway/merchant-keys.ts";
import { merchantEmails } from "../../../src/store/merchant-emails.ts";
import { type Body, json } from "../../support/http.ts";
import { startTestService, type TestService } from "../../support/service.ts";

const OPERATOR_SECRET = `operator-${"s".repeat(40)}`;
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
});
afterAll(async () => {
  await service?.stop();
});

const email = () => `shop-${randomUUID()}@merchant.test`;
const call = (path: string, init: { method?: string; auth?: string; body?: unknown } = {}) =>
  fetch(`${service.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.auth ? { authorization: init.auth } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
const operator = (path: string, body?: unknown) =>
  call(path, { method: "POST", auth: `Bearer ${OPERATOR_SECRET}`, body });
const bearer = (key: string) => `Bearer ${key}`;

async function createByOperator(address = email()) {
  const res = await operator("/v1/operator/merchants", { name: "Shop", email: address });
  expect(res.status).toBe(201);
  return (await json(res)) as { merchant: Body; publishable_key: string; secret_key: string };
}

/** A 401 as the interface wants it: the header, and the one-field body. */
async function expect401(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe("Bearer");
  expect(Object.keys(await json(res))).toEqual(["error"]);
}

describe("merchants and their keys (MERCHANT_MODE=development)", () => {
  it("the CLI creates a merchant and prints its pk_ and sk_ once; the sk_ reads the merchant", async () => {
    const address = email();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "src/cli.ts", "merchant", "create", "--name", "CLI Shop", "--email", address],
      { env: { ...process.env, MERCHANT_MODE: "development", LOG_LEVEL: "warn" }, timeout: 90_000 },
    );
    const pk = /publishable key (pk_test_\S+)/.exec(stdout)?.[1];
    const sk = /secret key +(sk_test_\S+)/.exec(stdout)?.[1];
    expect(pk).toBeDefined();
    expect(sk).toBeDefined();
    const res = await call("/v1/merchant", { auth: bearer(sk as string) });
    expect(res.status).toBe(200);
    const merchant = await json(res);
    expect(merchant).toMatchObject({ name: "CLI Shop", email: address, livemode: false });
    expect(merchant.id).toMatch(/^mer_[0-9a-f]{24}$/);
    // The publishable key is shown in the record; the secret key never is, only its last four.
    expect(JSON.stringify(merchant)).not.toContain(sk);
    expect(merchant.keys).toHaveLength(2);
    expect(merchant.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "publishable", key: pk, revoked_at: null }),
        expect.objectContaining({ type: "secret", key: null, last4: sk?.slice(-4), revoked_at: null }),
      ]),
    );
  }, 120_000);

  it("the operator route creates a merchant once per e-mail: 201 with the keys, then 409", async () => {
    const address = email();
    const created = await createByOperator(address);
    expect(created.publishable_key).toMatch(/^pk_test_[A-Za-z0-9_-]{43}$/);
    expect(created.secret_key).toMatch(/^sk_test_[A-Za-z0-9_-]{43}$/);
    expect(created.merchant.email).toBe(address);
    const again = await operator("/v1/operator/merchants", { name: "Other", email: address.toUpperCase() });
    expect(again.status).toBe(409);
    expect(await json(again)).toEqual({ error: "conflict" });
  });

  it("merchant ids are random: e-mails of one pattern give unrelated ids, none derived from the e-mail", async () => {
    const stem = randomUUID();
    const addresses = [`a-${stem}@merchant.test`, `b-${stem}@merchant.test`];
    const ids = await Promise.all(
      addresses.map(async (a) => (await createByOperator(a)).merchant.id as string),
    );
    expect(new Set(ids).size).toBe(2);
    for (const [i, id] of ids.entries()) {
      const address = addresses[i] as string;
      expect(id).toMatch(/^mer_[0-9a-f]{24}$/);
      // Not the old derivation, nor any plain SHA-256 of the address.
      expect(id).not.toBe(legacyMerchantId(address));
      const digest = createHash("sha256").update(address).digest("hex");
      expect(digest).not.toContain(id.slice(4));
    }
  });

  it("one e-mail created concurrently: one 201, every other 409", async () => {
    const address = email();
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) => operator("/v1/operator/merchants", { name: `Shop ${i}`, email: address })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
  });

  it("a creation interrupted after claiming its e-mail is completed by the next, under the claimed id", async () => {
    const address = email();
    // As a creation leaves it when it dies between the claim and its command reaching the actor.
    const claimed = newMerchantId();
    expect(await merchantEmails(service.cassandra).claim(address, claimed, Date.now())).toBe(claimed);
    const created = await createByOperator(address);
    expect(created.merchant.id).toBe(claimed);
    expect((await operator("/v1/operator/merchants", { name: "Again", email: address })).status).toBe(409);
  });

  it("a merchant of before random ids (its id the e-mail's hash) still holds its e-mail: 409", async () => {
    const address = email();
    // As the projection holds a merchant created before this change: its id derived from the e-mail.
    await service.cassandra.execute(
      "INSERT INTO merchants (merchant_id, name, email, created_at) VALUES (?, ?, ?, ?)",
      [legacyMerchantId(address), "Old Shop", address, new Date()],
      { prepare: true },
    );
    const again = await operator("/v1/operator/merchants", {
      name: "New Shop",
      email: address.toUpperCase(),
    });
    expect(again.status).toBe(409);
  });

  it("the operator route needs the operator secret (401) and a valid body (400)", async () => {
    await expect401(
      await call("/v1/operator/merchants", { method: "POST", body: { name: "x", email: email() } }),
    );
    await expect401(
      await call("/v1/operator/merchants", {
        method: "POST",
        auth: "Bearer wrong",
        body: { name: "x", email: email() },
      }),
    );
    const bad = await operator("/v1/operator/merchants", { name: "x", email: "not an e-mail" });
    expect(bad.status).toBe(400);
  });

  it("GET /v1/merchant: sk_ 200; pk_, no header, malformed or unknown key 401 with WWW-Authenticate", async () => {
    const { publishable_key: pk, secret_key: sk, merchant } = await createByOperator();
    const ok = await call("/v1/merchant", { auth: bearer(sk) });
    expect(ok.status).toBe(200);
    expect((await json(ok)).id).toBe(merchant.id);
    await expect401(await call("/v1/merchant", { auth: bearer(pk) }));
    await expect401(await call("/v1/merchant"));
    await expect401(await call("/v1/merchant", { auth: "Bearer sk_test_short" }));
    await expect401(await call("/v1/merchant", { auth: sk })); // no Bearer scheme
    await expect401(await call("/v1/merchant", { auth: bearer(sk.replace("sk_test_", "sk_live_")) }));
    await expect401(await call("/v1/merchant", { auth: bearer(`sk_test_${"A".repeat(43)}`) }));
  });

  it("rolling the sk_ through the merchant API revokes the old one at once (401) and the new one works", async () => {
    const { secret_key: sk } = await createByOperator();
    const res = await call("/v1/keys/roll", { method: "POST", auth: bearer(sk) });
    expect(res.status).toBe(200);
    const rolled = await json(res);
    expect(rolled).toMatchObject({ type: "secret" });
    expect(rolled.key).toMatch(/^sk_test_/);
    await expect401(await call("/v1/merchant", { auth: bearer(sk) }));
    const after = await call("/v1/merchant", { auth: bearer(rolled.key) });
    expect(after.status).toBe(200);
    const keys = (await json(after)).keys as Body[];
    // The old secret key (created first) revoked, the new one active.
    expect(keys.filter((k) => k.type === "secret").map((k) => k.revoked_at === null)).toEqual([false, true]);
  });

  it("two concurrent rolls with one sk_: one new key (200), the other 401 (its key revoked by the first)", async () => {
    const { secret_key: sk } = await createByOperator();
    const answers = await Promise.all(
      [1, 2].map(() => call("/v1/keys/roll", { method: "POST", auth: bearer(sk) })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401]);
    const winner = answers.find((r) => r.status === 200) as Response;
    await expect401(answers.find((r) => r.status === 401) as Response);
    const { key } = await json(winner);
    const keys = (await json(await call("/v1/merchant", { auth: bearer(key) }))).keys as Body[];
    expect(keys.filter((k) => k.type === "secret" && k.revoked_at === null)).toHaveLength(1);
  });

  it("the operator rolls and revokes keys; a revoked key is 401", async () => {
    const { merchant, secret_key: sk } = await createByOperator();
    const rolled = await json(
      await operator(`/v1/operator/merchants/${merchant.id}/keys/roll`, { type: "secret" }),
    );
    await expect401(await call("/v1/merchant", { auth: bearer(sk) }));
    const revoke = await operator(`/v1/operator/merchants/${merchant.id}/keys/${rolled.id}/revoke`);
    expect(revoke.status).toBe(204);
    await expect401(await call("/v1/merchant", { auth: bearer(rolled.key) }));
    const unknown = await operator("/v1/operator/merchants/mer_000000000000000000000000/keys/roll", {});
    expect(unknown.status).toBe(404);
  });
});

describe("MERCHANT_MODE off", () => {
  let off: TestService;
  beforeAll(async () => {
    off = await startTestService({ roles: ["gateway"], env: { MERCHANT_MODE: "off", OPERATOR_SECRET } });
  });
  afterAll(async () => {
    await off?.stop();
  });

  it("answers 404 on every merchant route, with or without credentials", async () => {
    const { secret_key: sk } = await createByOperator();
    for (const [method, path] of [
      ["GET", "/v1/merchant"],
      ["POST", "/v1/keys/roll"],
      ["POST", "/v1/operator/merchants"],
    ] as const) {
      const res = await fetch(`${off.url}${path}`, {
        method,
        headers: { authorization: bearer(path.includes("operator") ? OPERATOR_SECRET : sk) },
      });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
  });
});
