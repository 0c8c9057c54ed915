import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { SOLANA_LOCAL_CHAIN_ID } from "../../src/chains/solana/config.ts";
import { json } from "../support/http.ts";
import { fund, newBurner, sessionBody } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { openSse } from "../support/sse-client.ts";

let service: TestService;
let source: LocalChain;
let dest: LocalChain;

beforeAll(async () => {
  service = await startTestService({ env: { SSE_KEEPALIVE_MS: "500", INDEXER_POLL_MS: "250" } });
  [source, dest] = service.stack.chains as [LocalChain, LocalChain];
});
afterAll(async () => {
  await service?.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function createSession() {
  const burner = await newBurner(source);
  const res = await post("/sessions", sessionBody(burner, dest));
  expect(res.status).toBe(200);
  const created = (await json(res)) as { id: string; status: string; expires_at: number };
  return { burner, created };
}

async function pollUntil(id: string, pred: (s: Record<string, unknown>) => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = (await json(await fetch(`${service.url}/sessions/${id}`))) as Record<string, unknown>;
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`session ${id} never matched; last: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("anonymous sessions, from creation to detected", () => {
  it("POST /sessions answers id, pending and expires_at, and a GET right after never answers 404", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { burner, created } = await createSession();
    expect(created.status).toBe("pending");
    expect(created.expires_at).toBeGreaterThanOrEqual(before + service.config.SESSION_TTL_SECONDS - 5);
    const res = await fetch(`${service.url}/sessions/${created.id}`);
    expect(res.status).toBe(200);
    const session = await json(res);
    expect(session).toMatchObject({
      id: created.id,
      status: "pending",
      burner_address: burner.address.toLowerCase(),
      dest_chain_id: dest.chainId,
      app_fee_bps: 0,
      app_fee_recipient: "0x0000000000000000000000000000000000000000",
      detected_amount: null,
      retry_count: 0,
    });
  });

  it("a USDC deposit to the burner shows as detected on GET and on the SSE stream", async () => {
    const { burner, created } = await createSession();
    const sse = await openSse(`${service.url}/sessions/${created.id}/events`);
    try {
      expect(sse.status).toBe(200);
      const first = await sse.waitFor((e) => e.event === "status");
      expect(JSON.parse(first.data)).toMatchObject({ id: created.id, status: "pending" });

      const { hash, receipt } = await fund(source, burner.address, 12_500_000n, "usdc");
      expect(receipt.status).toBe("success");

      const detected = await sse.waitFor(
        (e) => e.event === "status" && JSON.parse(e.data).status === "detected",
      );
      const expected = {
        id: created.id,
        status: "detected",
        source_chain_id: source.chainId,
        detected_token: source.usdc.toLowerCase(),
        detected_amount: "12500000",
        detected_tx: hash,
      };
      expect(JSON.parse(detected.data)).toMatchObject(expected);
      expect(await pollUntil(created.id, (s) => s.status === "detected")).toMatchObject(expected);
    } finally {
      sse.close();
    }
  });

  it("a native deposit is detected with the zero address as token", async () => {
    const { burner, created } = await createSession();
    const { hash } = await fund(source, burner.address, 10n ** 15n, "native");
    const s = await pollUntil(created.id, (x) => x.status === "detected");
    expect(s).toMatchObject({
      source_chain_id: source.chainId,
      detected_token: "0x0000000000000000000000000000000000000000",
      detected_amount: "1000000000000000",
      detected_tx: hash,
    });
  });

  it("a second deposit to a detected burner is recorded on the session and adds to the detected amount", async () => {
    const { burner, created } = await createSession();
    await fund(source, burner.address, 1_000_000n, "usdc");
    await pollUntil(created.id, (s) => s.status === "detected");
    const { hash: second } = await fund(source, burner.address, 2_000_000n, "usdc");
    const s = await pollUntil(created.id, (x) => (x.deposits as unknown[]).length === 2);
    expect(s.detected_amount).toBe("3000000");
    expect((s.deposits as Array<{ tx: string }>).map((d) => d.tx)).toContain(second);
  });

  it("the SSE stream sends keep-alive comments", async () => {
    const { created } = await createSession();
    const sse = await openSse(`${service.url}/sessions/${created.id}/events`);
    try {
      await sse.waitForComment(5000);
      expect(sse.comments.length).toBeGreaterThan(0);
    } finally {
      sse.close();
    }
  });

  it("an unknown session is a 404 JSON error on GET and on the stream", async () => {
    const id = "00000000-0000-4000-8000-000000000000";
    const res = await fetch(`${service.url}/sessions/${id}`);
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({ error: expect.any(String) });
    const stream = await fetch(`${service.url}/sessions/${id}/events`);
    expect(stream.status).toBe(404);
  });

  it("a retried POST with the same Idempotency-Key answers the same session and creates no second one", async () => {
    const burner = await newBurner(source);
    const key = `test-${crypto.randomUUID()}`;
    const a = await json(await post("/sessions", sessionBody(burner, dest), { "idempotency-key": key }));
    const b = await json(await post("/sessions", sessionBody(burner, dest), { "idempotency-key": key }));
    expect(b.id).toBe(a.id);
    expect(b.expires_at).toBe(a.expires_at);
  });

  it("GET /metrics on the metrics port serves Prometheus series for requests, owned partitions, indexers and the projector; the API port has none", async () => {
    const api = await fetch(`${service.url}/metrics`);
    expect([api.status, (await json(api)).error]).toEqual([404, "route not found"]);
    const res = await fetch(`${service.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /settlement_http_requests_total\{method="POST",route="\/sessions",status="200"\} \d+/,
    );
    expect(text).toMatch(/settlement_actor_partitions_owned \d+/);
    expect(text).toMatch(new RegExp(`settlement_indexer_last_block\\{chain_id="${source.chainId}"\\} \\d+`));
    expect(text).toMatch(/settlement_projector_events_total \d+/);
  });

  it("GET /health reports the database, the indexers and the relayers", async () => {
    const res = await fetch(`${service.url}/health`);
    const body = await json(res);
    expect(body.checks.database.ok).toBe(true);
    expect(body.checks.indexers.map((i: { chain_id: number }) => i.chain_id).sort()).toEqual(
      [source.chainId, dest.chainId, SOLANA_LOCAL_CHAIN_ID].sort(),
    );
    expect(body.checks.relayers.every((r: { ok: boolean }) => r.ok)).toBe(true);
    // The local Solana node's chain: its indexer's position is a slot, its relayer's balance lamports.
    // biome-ignore lint/suspicious/noExplicitAny: the /health body as JSON, checked field by field below
    type Check = Record<string, any>;
    const solana = async () => {
      const b = await json(await fetch(`${service.url}/health`));
      const byChain = (list: Check[]): Check =>
        list.find((x) => x.chain_id === SOLANA_LOCAL_CHAIN_ID) ?? { ok: false };
      return { ix: byChain(b.checks.indexers), relayer: byChain(b.checks.relayers) };
    };
    let reported = await solana();
    for (let i = 0; i < 20 && !reported.ix.ok; i++) {
      await new Promise((r) => setTimeout(r, 500)); // the indexer's first checkpoint
      reported = await solana();
    }
    expect(reported.ix.ok).toBe(true);
    expect(reported.ix.last_block).toBeGreaterThan(0);
    expect(reported.ix.lag_seconds).toBeLessThanOrEqual(service.config.INDEXER_STALE_SECONDS);
    expect(reported.relayer.address).toBe(service.stack.solana.relayerKey.publicKey);
    expect(BigInt(reported.relayer.balance_wei)).toBeGreaterThanOrEqual(
      BigInt(reported.relayer.min_balance_wei),
    );

    expect(res.status).toBe(body.healthy ? 200 : 503);
  });
});
