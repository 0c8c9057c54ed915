import { describe, expect, it } from "vitest";
import { parseSolanaAddress } from "../../src/chains/solana/config.ts";
import type { LinkAdmin } from "../../src/gateway/admin/link-admin.ts";
import type { MerchantAdmin } from "../../src/gateway/admin/merchant-admin.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { createPageScript } from "../../src/gateway/link-page/bundle.ts";
import { formatUsdc, linkPage, NOT_PAYABLE } from "../../src/gateway/link-page/html.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import type { SolanaPort } from "../../src/gateway/ports.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import type { LinkRow } from "../../src/store/payment-links.ts";
import { CHAIN_ID, DELEGATE, memoryService, START_MS, testConfig } from "../support/memory-gateway.ts";

// The payment link routes through the gateway with in-memory ports: which route answers what, by
// setting, key, Accept and the link's state (the real stack: test/e2e/payment-link-page.e2e.test.ts).

const USDC = "0x2222222222222222222222222222222222222222";
const OTHER_CHAIN = 31338;
const sk = issueKey("secret", "test");
const otherSk = issueKey("secret", "test");
const nokeySk = issueKey("secret", "test");
const solSk = issueKey("secret", "test");
const keyRows: KeyByHash[] = [
  { ...solSk.issued, merchantId: "mer_s", createdAt: 1, revokedAt: null },
  { ...sk.issued, merchantId: "mer_a", createdAt: 1, revokedAt: null },
  { ...otherSk.issued, merchantId: "mer_b", createdAt: 1, revokedAt: null },
  { ...nokeySk.issued, merchantId: "mer_c", createdAt: 1, revokedAt: null },
];
const PK = "pk_test_abc";
const view = (id: string) => ({
  id,
  name: "Shop",
  email: "a@shop.test",
  created_at: "",
  livemode: false,
  keys: [
    {
      id: "k0",
      type: "publishable" as const,
      key: "pk_test_old",
      last4: "_old",
      created_at: "",
      revoked_at: "x",
    },
    // mer_c revoked its publishable key and rolled none.
    {
      id: "k1",
      type: "publishable" as const,
      key: PK,
      last4: "_abc",
      created_at: "",
      revoked_at: id === "mer_c" ? "x" : null,
    },
  ],
});
const merchantAdmin = { view: async (id: string) => view(id) } as unknown as MerchantAdmin;

const link = (over: Partial<LinkRow>): LinkRow => ({
  id: "plink_1",
  merchantId: "mer_a",
  slug: "slug_active",
  amount: "25000000",
  description: "Tea & <cake>",
  expiresAt: null,
  createdAt: START_MS,
  deactivatedAt: null,
  version: 1,
  ...over,
});
const LINKS = [
  link({}),
  link({ id: "plink_2", slug: "slug_off", deactivatedAt: START_MS }),
  link({ id: "plink_3", slug: "slug_old", expiresAt: START_MS - 1 }),
  link({ id: "plink_4", slug: "slug_nopin", merchantId: "mer_b" }),
  link({ id: "plink_5", slug: "slug_sol", merchantId: "mer_s" }),
];

const SOLANA = 792703810;
const SOL_DEST = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T";
/** The gateway's Solana side, as far as the link routes read it: no signature or RPC is used there. */
const solanaPort = {
  chainId: SOLANA,
  feePayer: "11111111111111111111111111111112",
  vault: "SysvarRent111111111111111111111111111111111",
  usdcMint: "SysvarC1ock11111111111111111111111111111111",
  reaches: [],
  parseAddress: parseSolanaAddress,
} as unknown as SolanaPort;

async function gateway(
  env: Record<string, string> = { MERCHANT_MODE: "development" },
  solana: SolanaPort | undefined = undefined,
) {
  const service = memoryService();
  const created: Array<{ merchantId: string; amount: bigint; solanaChainId?: number }> = [];
  const made: string[] = [];
  const admin: LinkAdmin = {
    create: async (merchantId, l) => {
      made.push(merchantId);
      return link({ id: "plink_new", merchantId, slug: "new_slug", ...l });
    },
    get: async (merchantId, id) => LINKS.find((l) => l.id === id && l.merchantId === merchantId) ?? null,
    deactivate: async () => link({ deactivatedAt: START_MS }),
  };
  const app = await createGateway({
    config: testConfig({
      RATE_LIMIT_BURST: "1000",
      EVM_CHAINS: JSON.stringify([
        {
          name: "source",
          chainId: CHAIN_ID,
          rpcUrl: "http://127.0.0.1:8545",
          delegate: DELEGATE,
          usdc: USDC,
        },
        {
          name: "dest",
          chainId: OTHER_CHAIN,
          rpcUrl: "http://127.0.0.1:8546",
          delegate: DELEGATE,
          usdc: USDC,
        },
      ]),
      ...env,
    }),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    now: () => START_MS,
    merchants: {
      admin: merchantAdmin,
      guards: createGuards({
        keys: { keyByHash: async (h) => keyRows.find((k) => k.hash === h) ?? null },
        mode: "test",
      }),
      checkout: {
        sessions: {
          create: async (input: { merchantId: string; amount: bigint; solanaChainId?: number }) => {
            created.push(input);
            return {
              id: "s1",
              amount: input.amount.toString(),
              client_secret: "cs_test_1",
              expires_at: 1_800_003_600,
              session: {
                dest_address: SOL_DEST,
                dest_chain_id: SOLANA,
                app_fee_bps: 0,
                app_fee_recipient_sol: null,
              },
            };
          },
        } as never,
        settings: {
          // mer_a and mer_c pinned a destination for the first chain (mer_a on Solana too); mer_b
          // none; mer_s on Solana alone.
          destinations: async (m: string) =>
            m === "mer_b"
              ? []
              : m === "mer_s"
                ? [{ sourceChainId: SOLANA, destAddress: SOL_DEST, destChainId: SOLANA }]
                : [
                    { sourceChainId: CHAIN_ID, destAddress: USDC, destChainId: OTHER_CHAIN },
                    ...(m === "mer_a"
                      ? [{ sourceChainId: SOLANA, destAddress: SOL_DEST, destChainId: SOLANA }]
                      : []),
                  ],
        } as never,
        resources: async () => null,
        mode: "test",
      },
    },
    links: { admin, store: { bySlug: async (slug) => LINKS.find((l) => l.slug === slug) ?? null } },
    ...(solana ? { solana } : {}),
  });
  return { app, created, made };
}
const auth = (key: string) => ({ authorization: `Bearer ${key}` });
const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describe("payment link routes", () => {
  it("do not exist with MERCHANT_MODE=off", async () => {
    const { app } = await gateway({ MERCHANT_MODE: "off" });
    for (const [method, url] of [
      ["GET", "/links/slug_active"],
      ["POST", "/links/slug_active/sessions"],
      ["GET", "/v1/payment_links/plink_1"],
    ] as const)
      expect((await app.inject({ method, url, headers: auth(sk.key) })).statusCode, url).toBe(404);
  });

  it("/v1: 401 with WWW-Authenticate without a key, 404 for another merchant's link, 400 for a past expiry", async () => {
    const { app } = await gateway();
    const none = await app.inject({ method: "GET", url: "/v1/payment_links/plink_1" });
    expect(none.statusCode).toBe(401);
    expect(none.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(
      (await app.inject({ method: "GET", url: "/v1/payment_links/plink_1", headers: auth(otherSk.key) }))
        .statusCode,
    ).toBe(404);
    const mine = await app.inject({ method: "GET", url: "/v1/payment_links/plink_1", headers: auth(sk.key) });
    expect(mine.json()).toMatchObject({
      id: "plink_1",
      active: true,
      url: "http://localhost:80/links/slug_active",
    });
    const past = await app.inject({
      method: "POST",
      url: "/v1/payment_links",
      headers: auth(sk.key),
      payload: { amount: "1", expires_at: START_MS / 1000 },
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toMatch(/expires_at/);
  });

  it("GET /links/:slug: JSON by default and to an API client, the page to a browser", async () => {
    const { app } = await gateway();
    const json = await app.inject({ method: "GET", url: "/links/slug_active" });
    expect(json.json()).toMatchObject({
      object: "payment_link",
      amount: "25000000",
      description: "Tea & <cake>",
      merchant_name: expect.any(String),
    });
    const page = await app.inject({ method: "GET", url: "/links/slug_active", headers: HTML });
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.body).toContain("Tea &#38; &#60;cake&#62;");
    expect(page.body).not.toContain("<cake>");
    expect(page.body).toContain('src="/links/assets/page.js"');
    // The merchant's name is shown; the link row's own fields (its merchant id) are not embedded.
    expect(page.body).toContain(`<strong id="merchant">${json.json().merchant_name}</strong>`);
    expect(page.body).not.toContain("mer_a");
    // No deposit address before the payer gave a refund address: the script fills it in then.
    expect(page.body).toContain('<div id="deposit" hidden>');
    expect(page.body).toContain('<code id="address"></code>');
  });

  it("410 for a deactivated or expired link (JSON and page), 404 for an unknown slug", async () => {
    const { app } = await gateway();
    for (const [slug, status, text] of [
      ["slug_off", 410, "deactivated"],
      ["slug_old", 410, "expired"],
      ["nothing", 404, "no such payment link"],
    ] as const) {
      const json = await app.inject({ method: "POST", url: `/links/${slug}/sessions` });
      expect([json.statusCode, json.json().error]).toEqual([status, expect.stringContaining(text)]);
      const page = await app.inject({ method: "GET", url: `/links/${slug}`, headers: HTML });
      expect([page.statusCode, page.headers["content-type"]]).toEqual([
        status,
        expect.stringMatching(/^text\/html/),
      ]);
      expect(page.body).toContain(text);
    }
  });

  it("POST /links/:slug/sessions: a session for the link's merchant and amount, the active pk_, the pinned chains", async () => {
    const { app, created } = await gateway();
    const res = await app.inject({ method: "POST", url: "/links/slug_active/sessions" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id: "s1",
      client_secret: "cs_test_1",
      publishable_key: PK,
      amount: "25000000",
      expires_at: 1_800_003_600,
      // USDC is the link's amount with no RPC asked; the coin's price needs the chain, which is not
      // running here: left out, not an error.
      chains: [
        {
          chain_id: CHAIN_ID,
          name: "source",
          delegate: DELEGATE,
          usdc: USDC,
          tokens: [{ token: USDC, symbol: "USDC", decimals: 6, amount: "25000000" }],
        },
      ],
      solana: null,
    });
    expect(created).toEqual([{ merchantId: "mer_a", amount: 25_000_000n }]);
    // A merchant with no pinned destination: no session made that could never be committed.
    const nopin = await app.inject({ method: "POST", url: "/links/slug_nopin/sessions" });
    expect([nopin.statusCode, nopin.json()]).toEqual([
      409,
      { error: "this merchant cannot take payments right now" },
    ]);
    expect(created).toHaveLength(1);
  });

  it("POST /links/:slug/sessions on Solana: offered when the merchant pinned it, a Solana checkout with its sweep terms for source_chain_id, 400 otherwise", async () => {
    const { app, created } = await gateway(undefined, solanaPort);
    const evm = await app.inject({ method: "POST", url: "/links/slug_active/sessions" });
    const offered = { chain_id: SOLANA, name: "Solana", usdc_mint: solanaPort.usdcMint, amount: "25000000" };
    expect(evm.json().solana).toEqual(offered);
    const page = await app.inject({ method: "GET", url: "/links/slug_active", headers: HTML });
    expect(page.body).toContain(
      `"solana":{"chain_id":${SOLANA},"name":"Solana","usdc_mint":"${solanaPort.usdcMint}"}`,
    );

    const res = await app.inject({
      method: "POST",
      url: "/links/slug_active/sessions",
      payload: { source_chain_id: SOLANA },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: "s1",
      chains: [],
      solana: offered,
      sweep: {
        chain_id: SOLANA,
        usdc_mint: solanaPort.usdcMint,
        fee_payer: solanaPort.feePayer,
        sweep_to: SOL_DEST,
        app_fee_bps: 0,
        open_sweep_to: false,
      },
    });
    expect(created.at(-1)).toEqual({ merchantId: "mer_a", amount: 25_000_000n, solanaChainId: SOLANA });

    // Another chain id, a body that is not the one field, a merchant that did not pin Solana: 400, nothing made.
    const before = created.length;
    for (const [slug, payload] of [
      ["slug_active", { source_chain_id: CHAIN_ID }],
      ["slug_active", { source_chain_id: SOLANA, extra: 1 }],
      ["slug_active", { source_chain_id: "solana" }],
    ] as const) {
      const refused = await app.inject({ method: "POST", url: `/links/${slug}/sessions`, payload });
      expect([refused.statusCode, refused.json().error], JSON.stringify(payload)).toEqual([
        400,
        expect.any(String),
      ]);
    }
    const noSolana = await gateway();
    const none = await noSolana.app.inject({
      method: "POST",
      url: "/links/slug_active/sessions",
      payload: { source_chain_id: SOLANA },
    });
    expect([none.statusCode, none.json().error]).toEqual([400, expect.stringMatching(/not paid on Solana/)]);
    expect(
      (await noSolana.app.inject({ method: "POST", url: "/links/slug_active/sessions" })).json().solana,
    ).toBeNull();
    expect(created.length).toBe(before);
    expect(noSolana.created).toHaveLength(1);
  });

  it("POST /v1/payment_links: 409 naming what is missing (a destination, an active pk_), nothing created", async () => {
    const { app, made } = await gateway();
    const create = (key: string) =>
      app.inject({ method: "POST", url: "/v1/payment_links", headers: auth(key), payload: { amount: "1" } });
    const nopin = await create(otherSk.key);
    expect([nopin.statusCode, nopin.json()]).toEqual([
      409,
      { error: "the merchant cannot be paid yet: no destination is pinned (PUT /v1/destinations)" },
    ]);
    const nokey = await create(nokeySk.key);
    expect(nokey.statusCode).toBe(409);
    expect(nokey.json().error).toMatch(/no publishable key is active/);
    expect(made).toEqual([]);
    expect((await create(sk.key)).statusCode).toBe(200);
    expect(made).toEqual(["mer_a"]);
  });

  it("a merchant paid on Solana alone: its link is made, payable, and its sessions are Solana ones", async () => {
    const { app, made, created } = await gateway(undefined, solanaPort);
    const res = await app.inject({
      method: "POST",
      url: "/v1/payment_links",
      headers: auth(solSk.key),
      payload: { amount: "1" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(made).toEqual(["mer_s"]);
    expect((await app.inject({ method: "GET", url: "/links/slug_sol" })).json().payable).toBe(true);
    // The page offers Solana alone: no EVM address asked for.
    const page = await app.inject({ method: "GET", url: "/links/slug_sol", headers: HTML });
    expect(page.body).toContain('"evm":false');
    expect(page.body).toContain('placeholder="a Solana address"');
    // No body (an EVM session) could never be paid: 400 saying what to send, nothing made.
    const evm = await app.inject({ method: "POST", url: "/links/slug_sol/sessions" });
    expect([evm.statusCode, evm.json().error]).toEqual([
      400,
      `source_chain_id: this link is paid on Solana only; send { "source_chain_id": ${SOLANA} }`,
    ]);
    expect(created).toEqual([]);
    const sol = await app.inject({
      method: "POST",
      url: "/links/slug_sol/sessions",
      payload: { source_chain_id: SOLANA },
    });
    expect(sol.statusCode, sol.body).toBe(200);
    expect(sol.json()).toMatchObject({ chains: [], sweep: { sweep_to: SOL_DEST } });
    expect(created).toEqual([{ merchantId: "mer_s", amount: 25_000_000n, solanaChainId: SOLANA }]);

    // Without a Solana chain configured, the same merchant can be paid nowhere: 409 naming the chains.
    const noSolana = await gateway();
    const refused = await noSolana.app.inject({
      method: "POST",
      url: "/v1/payment_links",
      headers: auth(solSk.key),
      payload: { amount: "1" },
    });
    expect([refused.statusCode, refused.json()]).toEqual([
      409,
      {
        error: `the merchant cannot be paid yet: no destination is pinned for a chain it can be paid on (${CHAIN_ID}, ${OTHER_CHAIN}; PUT /v1/destinations)`,
      },
    ]);
    expect(noSolana.made).toEqual([]);
    expect((await noSolana.app.inject({ method: "GET", url: "/links/slug_sol" })).json().payable).toBe(false);
  });

  it("a link whose merchant cannot be paid now: payable false, and a page that asks for nothing", async () => {
    const { app } = await gateway();
    expect((await app.inject({ method: "GET", url: "/links/slug_active" })).json().payable).toBe(true);
    const json = await app.inject({ method: "GET", url: "/links/slug_nopin" });
    expect([json.statusCode, json.json().payable]).toEqual([200, false]);
    const page = await app.inject({ method: "GET", url: "/links/slug_nopin", headers: HTML });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(NOT_PAYABLE);
    expect(page.body).not.toContain('id="refund"');
    expect(page.body).not.toContain('id="pay"');
    // The script still loads: a payment this browser already started resumes.
    expect(page.body).toContain('src="/links/assets/page.js"');
    const payable = await app.inject({ method: "GET", url: "/links/slug_active", headers: HTML });
    expect(payable.body).toContain('id="refund"');
    expect(payable.body).not.toContain(NOT_PAYABLE);
  });
});

describe("the hosted page", () => {
  it("writes amounts in USDC", () => {
    expect(["25000000", "1500001", "1", "0", "123456789012"].map(formatUsdc)).toEqual([
      "25.00",
      "1.500001",
      "0.000001",
      "0.00",
      "123456.789012",
    ]);
  });

  it("embeds the link as JSON that no description can break out of", () => {
    const html = linkPage(
      {
        slug: "s",
        amount: "1",
        description: "</script><script>alert(1)</script>",
        merchantName: "</script><b>",
        payable: true,
        evm: true,
        solana: null,
      },
      "/p.js",
    );
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain("\\u003c/script>");
  });

  it("bundles its script for the browser, once", async () => {
    const script = createPageScript();
    const [a, b] = await Promise.all([script(), script()]);
    expect(a).toBe(b);
    expect(a.length).toBeGreaterThan(10_000);
    expect(a).not.toMatch(/\bfrom\s*"node:|require\("node:/);
  }, 30_000);
});
