// The settlement routes on the real stack: actors, projector, indexer and gateway in this process, a
// deposit mined on the source anvil chain and detected by the indexer. A second gateway (a child
// process) is configured with an unreachable RPC for every chain: its commit, refund-all and quote
// answer 502 and the session does not change. Signatures are made by the client library's signers.
import { createPublicClient, erc20Abi, type Hex, http, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { intentTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { uniswapV2RouterAbi } from "../../src/chains/evm/uniswap-v2.ts";
import { intentMessage, signIntent } from "../../src/client/actions/sign-intent.ts";
import { signRefund } from "../../src/client/actions/sign-refund.ts";
import { signStandingRefund } from "../../src/client/actions/sign-standing-refund.ts";
import type { Burner } from "../../src/client/burner.ts";
import type { Session } from "../../src/client/types.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { type Body, json } from "../support/http.ts";
import { fund, newBurner, sessionBody } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";

let service: TestService;
let source: LocalChain;
let dest: LocalChain;
let down: Child | undefined;

/** Every request comes from 127.0.0.1: the default limit (5/s, burst 60) would answer some with 429. */
const UNLIMITED = { RATE_LIMIT_PER_SECOND: "100000", RATE_LIMIT_BURST: "100000" };

beforeAll(async () => {
  service = await startTestService({ env: { INDEXER_POLL_MS: "250", ...UNLIMITED } });
  [source, dest] = service.stack.chains as [LocalChain, LocalChain];
  // The same service seen through a gateway whose chains' RPC refuses connections (port 9: discard).
  const unreachable = service.stack.chains.map((c) => ({
    family: "evm",
    name: c.name,
    chainId: c.chainId,
    rpcUrl: "http://127.0.0.1:9",
    delegate: c.delegate,
    usdc: c.usdc,
  }));
  await startChild("gateway-rpc-down", ["src/cli.ts", "gateway"], {
    env: { LOG_LEVEL: "warn", PORT: "0", CHAINS: JSON.stringify(unreachable), ...UNLIMITED },
    ready: /^gateway\s+listening on (http:\/\/\S+)/,
    timeoutMs: 120_000,
    started: (c) => {
      down = c;
    },
  });
}, 180_000);
afterAll(async () => {
  await down?.stop();
  await service?.stop();
});

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const getSession = async (id: string): Promise<Session> => json(await fetch(`${service.url}/sessions/${id}`));

async function pollUntil(id: string, pred: (s: Session) => boolean, timeoutMs = 30_000): Promise<Session> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await getSession(id);
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`session ${id} never matched; last: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function newSession(): Promise<{ id: string; burner: Burner }> {
  const burner = await newBurner(source);
  const res = await post(service.url, "/sessions", sessionBody(burner, dest));
  expect(res.status).toBe(200);
  return { id: (await json(res)).id, burner };
}

/** A session with a detected deposit of `amount` USDC (6 decimals) or wei. */
async function detectedSession(amount: bigint, token: "usdc" | "native") {
  const { id, burner } = await newSession();
  await fund(source, burner.address, amount, token);
  const session = await pollUntil(id, (s) => s.status === "detected");
  return { id, burner, session };
}

/** The commit body the client library builds for a detected session (min_out: the amount itself for USDC). */
async function commitBody(burner: Burner, session: Session, signer = burner.account) {
  const { intent, signature, chainId } = await signIntent({
    signer: { address: burner.address, signTypedData: signer.signTypedData },
    session,
    quote: null,
  });
  return {
    burner: burner.address,
    eip7702_auth: burner.eip7702Auth,
    intent,
    intent_sigs: { [String(chainId)]: signature },
  };
}

describe("POST /sessions/:id/commit", () => {
  it("commits a signed Intent for a detected USDC deposit, answers the fees, and answers a retry as the first", async () => {
    const { id, burner, session } = await detectedSession(4_000_000n, "usdc");
    const body = await commitBody(burner, session);
    const res = await post(service.url, `/sessions/${id}/commit`, body);
    expect(res.status).toBe(200);
    const first = await json(res);
    expect(first).toEqual({
      id,
      status: "detected",
      fee_bps: 80,
      app_fee_bps: 0,
      app_fee_recipient: zeroAddress,
    });
    const committed = await pollUntil(id, (s) => s.fee_bps !== null);
    expect(committed.fee_bps).toBe(80);

    const again = await post(service.url, `/sessions/${id}/commit`, body);
    expect([again.status, await json(again)]).toEqual([200, first]);
  });

  it("refuses an Intent signed by another key, a changed recipient, a commit before detection and a second Intent", async () => {
    const { id, burner, session } = await detectedSession(1_000_000n, "usdc");
    const forged = await commitBody(burner, session, privateKeyToAccount(generatePrivateKey()));
    const r1 = await post(service.url, `/sessions/${id}/commit`, forged);
    expect([r1.status, (await json(r1)).error]).toEqual([
      400,
      expect.stringMatching(/does not recover to the burner/),
    ]);

    // Signed by the burner, but paying someone else than the session's destination.
    const { intent } = await commitBody(burner, session);
    const elsewhere = { ...intent, dest_addr: "0x000000000000000000000000000000000000bEEF" as Hex };
    const redirected = await signedFor(burner, elsewhere);
    const r2 = await post(service.url, `/sessions/${id}/commit`, redirected);
    expect([r2.status, (await json(r2)).error]).toEqual([400, expect.stringMatching(/dest_addr/)]);

    const pending = await newSession();
    const early = await signedFor(pending.burner, intent);
    const r3 = await post(service.url, `/sessions/${pending.id}/commit`, early);
    expect([r3.status, (await json(r3)).error]).toEqual([409, expect.stringMatching(/no deposit/)]);

    expect(
      (await post(service.url, `/sessions/${id}/commit`, await commitBody(burner, session))).status,
    ).toBe(200);
    const second = await commitBody(burner, session); // another salt: another Intent
    const r4 = await post(service.url, `/sessions/${id}/commit`, second);
    expect([r4.status, (await json(r4)).error]).toEqual([409, expect.stringMatching(/another intent/)]);
  });
});

/** A commit body for an Intent changed after building, signed by the burner. */
async function signedFor(burner: Burner, intent: Body) {
  const signature = await burner.account.signTypedData(
    intentTypedData(source.chainId, burner.address, intentMessage(intent)),
  );
  return {
    burner: burner.address,
    eip7702_auth: burner.eip7702Auth,
    intent,
    intent_sigs: { [String(source.chainId)]: signature },
  };
}

describe("GET /sessions/:id/quote", () => {
  it("quotes a native deposit from the source chain's WETH/USDC pool, with the floor after 0.5%", async () => {
    const wei = 10n ** 15n;
    const { id } = await detectedSession(wei, "native");
    const res = await fetch(`${service.url}/sessions/${id}/quote`);
    expect(res.status).toBe(200);
    const quote = await json(res);
    const dex = source.dex as NonNullable<LocalChain["dex"]>;
    const client = createPublicClient({ transport: http(source.rpcUrl) });
    const amounts = await client.readContract({
      address: dex.router,
      abi: uniswapV2RouterAbi,
      functionName: "getAmountsOut",
      args: [wei, [dex.weth, source.usdc]],
    });
    const estimated = amounts[1] as bigint;
    expect(estimated).toBeGreaterThan(0n);
    expect(quote).toEqual({
      estimated_out: estimated.toString(),
      suggested_min_out: ((estimated * 9950n) / 10_000n).toString(),
      chain_id: source.chainId,
      in_token: zeroAddress,
      max_in: wei.toString(),
      slippage_bps: 50,
    });
  });

  it("answers 409 for a USDC deposit (no quote is used) and before detection", async () => {
    const { id } = await detectedSession(2_000_000n, "usdc");
    const usdc = await fetch(`${service.url}/sessions/${id}/quote`);
    expect([usdc.status, (await json(usdc)).error]).toEqual([409, expect.stringMatching(/USDC/)]);
    const pending = await newSession();
    expect((await fetch(`${service.url}/sessions/${pending.id}/quote`)).status).toBe(409);
  });
});

describe("POST /sessions/:id/standing-refund and refund-all", () => {
  it("stores a standing refund signed by the burner and refuses one that is not", async () => {
    const { id, burner } = await newSession();
    const to = source.funded.address as Hex;
    const good = await signStandingRefund({ signer: burner.account, to, chainIds: [source.chainId] });
    const res = await post(service.url, `/sessions/${id}/standing-refund`, good);
    expect([res.status, await json(res)]).toEqual([
      200,
      { id, status: "pending", standing_refund: { ...good, to: to.toLowerCase() } },
    ]);

    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await signStandingRefund({
      signer: { address: burner.address, signTypedData: stranger.signTypedData },
      to,
      chainIds: [source.chainId],
    });
    const refused = await post(service.url, `/sessions/${id}/standing-refund`, forged);
    expect(refused.status).toBe(400);
  });

  it("refuses refund-all on a pending session", async () => {
    const { id, burner } = await newSession();
    const sr = await signStandingRefund({
      signer: burner.account,
      to: source.funded.address as Hex,
      chainIds: [source.chainId],
    });
    expect((await post(service.url, `/sessions/${id}/standing-refund`, sr)).status).toBe(200);
    const res = await post(service.url, `/sessions/${id}/refund-all`, {
      token: "native",
      chain_id: source.chainId,
    });
    expect([res.status, (await json(res)).error]).toEqual([409, expect.stringMatching(/expired or failed/)]);
  });
});

describe("an unreachable RPC", () => {
  it("answers 502 on commit, refund-all and quote, and the session does not change", async () => {
    const gateway = (down as Child).ready;
    const { id, burner, session } = await detectedSession(3_000_000n, "usdc");
    const body = await commitBody(burner, session);
    const before = await getSession(id);

    const commit = await post(gateway, `/sessions/${id}/commit`, body);
    expect([commit.status, (await json(commit)).error]).toEqual([
      502,
      expect.stringMatching(/RPC did not answer/),
    ]);
    const refundAll = await post(gateway, `/sessions/${id}/refund-all`, {
      token: "native",
      chain_id: source.chainId,
    });
    expect(refundAll.status).toBe(502);
    expect((await fetch(`${gateway}/sessions/${id}/quote`)).status).toBe(502);

    // Nothing was sent: the session is as it was, and the same commit through a working gateway is the first.
    await new Promise((r) => setTimeout(r, 500));
    expect(await getSession(id)).toEqual(before);
    const ok = await post(service.url, `/sessions/${id}/commit`, body);
    expect([ok.status, (await json(ok)).status]).toEqual([200, "detected"]);
  });
});

describe("POST /sessions/:id/refund with the executor", () => {
  let executor: Child | undefined;
  beforeAll(async () => {
    executor = await startChild("executor", ["src/cli.ts", "executor"], {
      env: { LOG_LEVEL: "warn" },
      ready: /^executor\s+(.*)$/,
      timeoutMs: 120_000,
    });
  }, 150_000);
  afterAll(async () => {
    await executor?.stop();
  });

  it("sends money that arrived after the sweep back under the burner's signed Refund, and answers its tx_hash", async () => {
    // A same-chain destination: the sweep needs no bridge, and it delegates the burner, which the
    // refund's call runs on.
    const burner = await newBurner(source);
    const created = await post(service.url, "/sessions", sessionBody(burner, source));
    const { id } = await json(created);
    await fund(source, burner.address, 2_000_000n, "usdc");
    const session = await pollUntil(id, (s) => s.status === "detected");
    expect(
      (await post(service.url, `/sessions/${id}/commit`, await commitBody(burner, session))).status,
    ).toBe(200);
    await pollUntil(id, (s) => s.status === "swept", 90_000);

    await fund(source, burner.address, 1_000_000n, "usdc");
    await pollUntil(id, (s) => s.deposits.length === 2);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const body = await signRefund({
      signer: burner.account,
      chainId: source.chainId,
      token: source.usdc,
      to,
      amount: 1_000_000n,
    });
    const res = await post(service.url, `/sessions/${id}/refund`, body);
    const answer = await json(res);
    expect([res.status, answer]).toEqual([
      200,
      {
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        to: to.toLowerCase(),
        token: source.usdc.toLowerCase(),
      },
    ]);
    const client = createPublicClient({ transport: http(source.rpcUrl) });
    await client.waitForTransactionReceipt({ hash: answer.tx_hash });
    const balance = await client.readContract({
      address: source.usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [to],
    });
    expect(balance).toBe(1_000_000n);
    const done = await pollUntil(id, (s) => s.refunds.some((r) => r.status === "confirmed"));
    expect(done.refunds).toMatchObject([{ kind: "refund", amount: "1000000", status: "confirmed" }]);

    // The same signed refund again joins the first: same record, same transaction, nothing sent twice.
    const again = await post(service.url, `/sessions/${id}/refund`, body);
    expect([again.status, (await json(again)).tx_hash]).toEqual([200, done.refunds[0]?.tx_hash]);
  }, 150_000);
});
