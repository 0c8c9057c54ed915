import type { FastifyInstance } from "fastify";
import { type Hex, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import {
  intentTypedData,
  refundTypedData,
  standingRefundTypedData,
} from "../../src/chains/evm/typed-data/eip712.ts";
import { signAuthorization } from "../../src/client/actions/sign-authorization.ts";
import { intentMessage } from "../../src/client/actions/sign-intent.ts";
import { newBurner } from "../../src/client/burner.ts";
import { ConfigError, parseConfig } from "../../src/config.ts";
import type { RecordExecutionResult, SessionCommand } from "../../src/domain/commands.ts";
import type { Address } from "../../src/domain/types.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { type ChainReadPort, ChainUnavailableError } from "../../src/gateway/ports.ts";
import { suggestedMinOut } from "../../src/gateway/routes/settlement.ts";
import { CHAIN_ID, DELEGATE, memoryService, START_MS, testConfig } from "../support/memory-gateway.ts";

// The settlement routes over the pure session core (memory-gateway's owner runs decide/evolve) and a
// scripted chain: what the gateway checks, sends and answers. The real chain is the e2e tier's.

const USDC: Address = "0x5555555555555555555555555555555555555555";
const DEST: Address = "0x4444444444444444444444444444444444444444";
const REFUND_TO: Address = "0x3333333333333333333333333333333333333333";
const NOW_S = START_MS / 1000;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function scriptedChain() {
  const calls = { probes: [] as Array<[number, string]>, quotes: [] as Array<[number, string, bigint]> };
  let down = false;
  let balance = 100n;
  const reads: ChainReadPort = {
    async quote(chainId, token, amountIn) {
      calls.quotes.push([chainId, token, amountIn]);
      if (down) throw new ChainUnavailableError("connection refused");
      if (token === USDC) return { kind: "usdc" };
      if (token === "0x9999999999999999999999999999999999999999") return { kind: "no_route" };
      return { kind: "quote", estimatedOut: amountIn * 3n };
    },
    async probe(chainId, address) {
      calls.probes.push([chainId, address]);
      if (down) throw new ChainUnavailableError("connection refused");
      return balance;
    },
    async gasValue(_chainId, _token, gas) {
      if (down) throw new ChainUnavailableError("connection refused");
      return gas / 100_000n; // a refund's gas is worth 1 base unit: a refund of 1 is dust
    },
  };
  return { reads, calls, setDown: (v: boolean) => (down = v), setBalance: (v: bigint) => (balance = v) };
}

async function setup(env: Record<string, string> = {}) {
  const service = memoryService();
  const chain = scriptedChain();
  let ids = 0;
  app = await createGateway({
    config: testConfig({ REFUND_WAIT_MS: "300", ...env }),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    chainReads: chain.reads,
    newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, "0")}`,
    now: () => START_MS,
  });
  const a = app;
  const call = (method: "GET" | "POST", url: string, body?: unknown) =>
    a.inject({
      method,
      url,
      ...(body === undefined
        ? {}
        : { payload: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
  return { app: a, service, chain, call };
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** A session with a real burner key, optionally with a deposit of `token` already detected. */
async function session(s: Setup, deposit: { token: Address; amount: bigint } | null = null) {
  const burner = await newBurner({ chainId: CHAIN_ID, delegate: DELEGATE });
  const created = await s.call("POST", "/sessions", {
    burner_address: burner.address,
    eip7702_auth: burner.eip7702Auth,
    destination_address: DEST,
    destination_chain: 8453,
  });
  expect(created.statusCode).toBe(200);
  const id = created.json().id as string;
  if (deposit) await depositTo(s, id, deposit);
  return { id, burner };
}

async function depositTo(s: Setup, id: string, deposit: { token: Address; amount: bigint }) {
  await s.service.commands.send({
    type: "RecordTransfer",
    data: {
      sessionId: id,
      transfer: {
        chainId: CHAIN_ID,
        token: deposit.token,
        amount: deposit.amount,
        txHash: `0x${"ab".repeat(32)}`,
        logIndex: 0,
        blockNumber: 10n,
        blockHash: `0x${"cd".repeat(32)}`,
        from: DEST,
      },
      terms: null,
      finality: null,
    },
    metadata: { commandId: `transfer:${id}`, issuedAt: START_MS, replyTo: null },
  });
}

const sentOf = (s: Setup, type: SessionCommand["type"]) => s.service.sent.filter((c) => c.type === type);

async function signedCommit(
  burner: { address: Address; account: { signTypedData: (d: never) => Promise<Hex> }; eip7702Auth: object },
  overrides: Partial<{ dest_addr: Address; max_in: string; in_token: Address }> = {},
  signer = burner.account,
) {
  const intent = {
    dest_chain_id: 8453,
    dest_addr: DEST,
    min_out: "2900000",
    deadline: NOW_S + 600,
    salt: `0x${"11".repeat(32)}` as Hex,
    in_token: USDC,
    max_in: "3000000",
    app_fee_bps: 0,
    app_fee_recipient: zeroAddress,
    ...overrides,
  };
  const sig = await signer.signTypedData(
    intentTypedData(CHAIN_ID, burner.address, intentMessage(intent)) as never,
  );
  return {
    burner: burner.address,
    eip7702_auth: burner.eip7702Auth,
    intent,
    intent_sigs: { [String(CHAIN_ID)]: sig },
  };
}

describe("POST /sessions/:id/commit", () => {
  it("sends CommitIntent with the platform fee once the signature recovers to the burner, and answers the fees", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const body = await signedCommit(burner);
    const res = await s.call("POST", `/sessions/${id}/commit`, body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id,
      status: "detected",
      fee_bps: 80,
      app_fee_bps: 0,
      app_fee_recipient: zeroAddress,
    });
    const [command] = sentOf(s, "CommitIntent");
    expect(command?.data).toMatchObject({
      sessionId: id,
      signature: body.intent_sigs[String(CHAIN_ID)],
      sourceChainId: CHAIN_ID,
      feeBps: 80,
      intent: { minOut: 2_900_000n, maxIn: 3_000_000n, inToken: USDC.toLowerCase(), deadline: NOW_S + 600 },
    });
    expect(s.chain.calls.probes).toEqual([[CHAIN_ID, burner.address.toLowerCase()]]);
  });

  it("answers a retried identical commit as the first, with the same command id", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const body = await signedCommit(burner);
    const first = await s.call("POST", `/sessions/${id}/commit`, body);
    const again = await s.call("POST", `/sessions/${id}/commit`, body);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    const [a, b] = sentOf(s, "CommitIntent");
    expect(b?.metadata.commandId).toBe(a?.metadata.commandId);
  });

  it("after a commit, the same Intent under another authorization of the burner is authorization_mismatch", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const body = await signedCommit(burner);
    expect((await s.call("POST", `/sessions/${id}/commit`, body)).statusCode).toBe(200);
    // Valid on its own (signed by the burner, for the delegate), but not the session's: a new command
    // the session refuses, not a retry answered as the first.
    const auth = await signAuthorization({
      signer: burner.account,
      chainId: CHAIN_ID,
      delegate: DELEGATE,
      nonce: 1,
    });
    const res = await s.call("POST", `/sessions/${id}/commit`, { ...body, eip7702_auth: auth });
    expect([res.statusCode, res.json().error]).toEqual([
      400,
      expect.stringMatching(/authorization this session/),
    ]);
    const [first, second] = sentOf(s, "CommitIntent");
    expect(second?.metadata.commandId).not.toBe(first?.metadata.commandId);
  });

  it("refuses an Intent signed by another key with a 400 and sends nothing", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const body = await signedCommit(burner, {}, privateKeyToAccount(generatePrivateKey()));
    const res = await s.call("POST", `/sessions/${id}/commit`, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/intent signature does not recover to the burner: chain 31337/);
    expect(sentOf(s, "CommitIntent")).toEqual([]);
    expect(s.chain.calls.probes).toEqual([]);
  });

  it("refuses another burner, another authorization and a missing source-chain signature", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const other = await newBurner({ chainId: CHAIN_ID, delegate: DELEGATE });
    const body = await signedCommit(burner);
    const cases: Array<[object, RegExp]> = [
      // Signed throughout by another burner: the signatures hold, the session core refuses the burner.
      [await signedCommit(other), /burner is not this session's burner/],
      [{ ...body, eip7702_auth: other.eip7702Auth }, /authorization was not signed by the burner/],
      [{ ...body, intent_sigs: { "8453": body.intent_sigs[String(CHAIN_ID)] } }, /source chain 31337/],
    ];
    const before = await s.service.sessions.get(id);
    for (const [bad, message] of cases) {
      const res = await s.call("POST", `/sessions/${id}/commit`, bad);
      expect([res.statusCode, res.json().error]).toEqual([400, expect.stringMatching(message)]);
    }
    // Only the one whose signatures held reached the session, which refused it: nothing changed.
    expect(sentOf(s, "CommitIntent").map((c) => c.data)).toMatchObject([
      { burner: other.address.toLowerCase() },
    ]);
    expect(await s.service.sessions.get(id)).toEqual(before);
  });

  it("answers a malformed Intent with a 400 naming the field", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const body = await signedCommit(burner);
    for (const [field, value] of [
      ["min_out", "2.5"],
      ["max_in", "0"],
      ["min_out", 2900000],
      ["salt", "0x11"],
    ] as const) {
      const res = await s.call("POST", `/sessions/${id}/commit`, {
        ...body,
        intent: { ...body.intent, [field]: value },
      });
      expect([res.statusCode, res.json().error]).toEqual([400, expect.stringContaining(`intent.${field}`)]);
    }
  });

  it("answers 409 before a deposit is detected and 404 for an unknown session", async () => {
    const s = await setup();
    const { id, burner } = await session(s);
    const body = await signedCommit(burner);
    expect((await s.call("POST", `/sessions/${id}/commit`, body)).statusCode).toBe(409);
    const unknown = "00000000-0000-4000-8000-00000000ffff";
    expect((await s.call("POST", `/sessions/${unknown}/commit`, body)).statusCode).toBe(404);
  });

  it("maps the core's refusal of an Intent that does not match the deposit to a 400", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    const res = await s.call("POST", `/sessions/${id}/commit`, await signedCommit(burner, { max_in: "1" }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/max_in/);
  });

  it("answers 502 and sends nothing when the source chain's RPC does not answer", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 3_000_000n });
    s.chain.setDown(true);
    const res = await s.call("POST", `/sessions/${id}/commit`, await signedCommit(burner));
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatch(/safe to retry/);
    expect(sentOf(s, "CommitIntent")).toEqual([]);
  });
});

describe("GET /sessions/:id/quote", () => {
  it("answers the pool's estimate and the floor after the configured slippage", async () => {
    const s = await setup({ QUOTE_SLIPPAGE_BPS: "50" });
    const token: Address = "0x7777777777777777777777777777777777777777";
    const { id } = await session(s, { token, amount: 333n });
    const res = await s.call("GET", `/sessions/${id}/quote`);
    expect(res.statusCode).toBe(200);
    // 999 * 9950 / 10000 = 994.005, floored.
    expect(res.json()).toEqual({
      estimated_out: "999",
      suggested_min_out: "994",
      chain_id: CHAIN_ID,
      in_token: token,
      max_in: "333",
      slippage_bps: 50,
    });
    expect(s.chain.calls.quotes).toEqual([[CHAIN_ID, token, 333n]]);
  });

  it("says no quote is used for USDC, none before detection, none without a pool, and 502 without an RPC", async () => {
    const s = await setup();
    const usdc = await session(s, { token: USDC, amount: 5n });
    const pending = await session(s);
    const noPool = await session(s, { token: "0x9999999999999999999999999999999999999999", amount: 5n });
    const answer = async (id: string) => {
      const res = await s.call("GET", `/sessions/${id}/quote`);
      return [res.statusCode, res.json().error];
    };
    expect(await answer(usdc.id)).toEqual([409, expect.stringMatching(/USDC: nothing is swapped/)]);
    expect(await answer(pending.id)).toEqual([409, expect.stringMatching(/no deposit/)]);
    expect(await answer(noPool.id)).toEqual([409, expect.stringMatching(/no pool/)]);
    s.chain.setDown(true);
    expect((await answer(noPool.id))[0]).toBe(502);
  });

  it("floors in integers, never in floating point", () => {
    expect(suggestedMinOut(999n, 50)).toBe(994n);
    expect(suggestedMinOut(10n ** 30n + 1n, 1)).toBe(999_900_000_000_000_000_000_000_000_000n);
    expect(suggestedMinOut(7n, 0)).toBe(7n);
  });
});

describe("POST /sessions/:id/standing-refund", () => {
  it("stores a standing refund whose every signature recovers to the burner, and refuses one that does not", async () => {
    const s = await setup();
    const { id, burner } = await session(s);
    const deadline = NOW_S + 3600;
    const sign = (signer = burner.account) =>
      signer.signTypedData(
        standingRefundTypedData(CHAIN_ID, burner.address, { to: REFUND_TO, deadline: BigInt(deadline) }),
      );
    const good = { to: REFUND_TO, deadline, signatures: { [String(CHAIN_ID)]: await sign() } };
    const res = await s.call("POST", `/sessions/${id}/standing-refund`, good);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id, status: "pending", standing_refund: good });
    expect(sentOf(s, "AttachStandingRefund")).toHaveLength(1);

    const bad = {
      ...good,
      signatures: { [String(CHAIN_ID)]: await sign(privateKeyToAccount(generatePrivateKey())) },
    };
    const refused = await s.call("POST", `/sessions/${id}/standing-refund`, bad);
    expect([refused.statusCode, refused.json().error]).toEqual([
      400,
      expect.stringMatching(/does not recover/),
    ]);
    expect(sentOf(s, "AttachStandingRefund")).toHaveLength(1);
  });
});

describe("POST /sessions/:id/refund and /refund-all", () => {
  async function signedRefund(burner: Awaited<ReturnType<typeof newBurner>>, signer = burner.account) {
    const refund = {
      token: USDC,
      to: REFUND_TO,
      amount: 5n,
      deadline: BigInt(NOW_S + 600),
      salt: `0x${"22".repeat(32)}` as Hex,
    };
    const signature = await signer.signTypedData(refundTypedData(CHAIN_ID, burner.address, refund));
    return { ...refund, amount: "5", deadline: NOW_S + 600, signature, chain_id: CHAIN_ID };
  }

  /** The executor's report for a refund command, through the core as executor.results would bring it. */
  const executorReports = (s: Setup, id: string, outcome: RecordExecutionResult["data"]["outcome"]) => {
    const command = sentOf(s, "RequestRefund")[0] ?? sentOf(s, "RequestRefundAll")[0];
    const refunds = s.service.record(id)?.session.refunds ?? [];
    const result: RecordExecutionResult = {
      type: "RecordExecutionResult",
      data: { sessionId: id, executorCommandId: refunds.at(-1)?.id ?? "", chainId: CHAIN_ID, outcome },
      metadata: { commandId: `result:${command?.metadata.commandId}`, issuedAt: START_MS, replyTo: null },
    };
    return s.service.commands.send(result as unknown as SessionCommand);
  };

  it("answers the refund's tx_hash once the executor has broadcast it", async () => {
    const s = await setup({ REFUND_WAIT_MS: "5000" });
    const { id, burner } = await session(s, { token: USDC, amount: 5n });
    const pending = s.call("POST", `/sessions/${id}/refund`, await signedRefund(burner));
    await new Promise((r) => setTimeout(r, 50));
    const txHash = `0x${"ee".repeat(32)}` as Hex;
    await executorReports(s, id, { type: "TransactionSubmitted", txHash });
    const res = await pending;
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ tx_hash: txHash, to: REFUND_TO, token: USDC.toLowerCase() });
    expect(sentOf(s, "RequestRefund")[0]?.data).toMatchObject({ amount: 5n, chainId: CHAIN_ID });
  });

  it("answers 502 when the executor gave the refund up, and 504 when nothing was broadcast in time", async () => {
    const s = await setup({ REFUND_WAIT_MS: "300" });
    const { id, burner } = await session(s, { token: USDC, amount: 5n });
    const late = await s.call("POST", `/sessions/${id}/refund`, await signedRefund(burner));
    expect([late.statusCode, late.json().error]).toEqual([
      504,
      expect.stringMatching(/retry the same request/),
    ]);
    await executorReports(s, id, {
      type: "ExecutionFailed",
      errorMessage: "reverted: Expired",
      retryable: false,
      txHash: null,
    });
    const failed = await s.call("POST", `/sessions/${id}/refund`, await signedRefund(burner));
    expect([failed.statusCode, failed.json().error]).toEqual([502, expect.stringMatching(/Expired/)]);
  });

  it("answers 409 when the executor gave the refund up because the burner no longer held the amount", async () => {
    const s = await setup({ REFUND_WAIT_MS: "5000" });
    const { id, burner } = await session(s, { token: USDC, amount: 5n });
    const pending = s.call("POST", `/sessions/${id}/refund`, await signedRefund(burner));
    await new Promise((r) => setTimeout(r, 50));
    // The payer ran the same signed refund on chain first: the balance left before the relayer's send.
    s.chain.setBalance(3n);
    await executorReports(s, id, {
      type: "ExecutionFailed",
      errorMessage: "reverted: SaltUsed",
      retryable: false,
      txHash: null,
    });
    const res = await pending;
    expect([res.statusCode, res.json().error]).toEqual([409, expect.stringMatching(/now holds 3 of/)]);
  });

  it("refuses a refund signed by another key, and one for a chain that is not configured, before sending", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 5n });
    const forged = await s.call(
      "POST",
      `/sessions/${id}/refund`,
      await signedRefund(burner, privateKeyToAccount(generatePrivateKey())),
    );
    expect([forged.statusCode, forged.json().error]).toEqual([
      400,
      expect.stringMatching(/refund's signature/),
    ]);
    const elsewhere = await s.call("POST", `/sessions/${id}/refund`, {
      ...(await signedRefund(burner)),
      chain_id: 1,
    });
    expect([elsewhere.statusCode, elsewhere.json().error]).toEqual([
      400,
      expect.stringMatching(/chain_id 1/),
    ]);
    expect(sentOf(s, "RequestRefund")).toEqual([]);
  });

  it("refuses a second refund that reuses a salt for another amount", async () => {
    const s = await setup();
    const { id, burner } = await session(s, { token: USDC, amount: 5n });
    const first = await signedRefund(burner);
    expect((await s.call("POST", `/sessions/${id}/refund`, first)).statusCode).toBe(504);
    const message = {
      token: USDC,
      to: REFUND_TO,
      amount: 4n,
      deadline: BigInt(first.deadline),
      salt: first.salt,
    };
    const signature = await burner.account.signTypedData(refundTypedData(CHAIN_ID, burner.address, message));
    const reused = await s.call("POST", `/sessions/${id}/refund`, { ...first, amount: "4", signature });
    expect([reused.statusCode, reused.json().error]).toEqual([409, expect.stringMatching(/salt/)]);
  });

  it("concurrent refund-all calls join the refund in flight and answer its one tx_hash", async () => {
    const s = await setup({ REFUND_WAIT_MS: "5000" });
    const { id, burner } = await session(s);
    await s.service.commands.send({
      type: "ExpireSession",
      data: { sessionId: id, now: NOW_S + 7200 },
      metadata: { commandId: `expire:${id}`, issuedAt: START_MS, replyTo: null },
    });
    await depositTo(s, id, { token: USDC, amount: 9n }); // late money on an expired session
    const deadline = BigInt(NOW_S + 3600);
    const sig = await burner.account.signTypedData(
      standingRefundTypedData(CHAIN_ID, burner.address, { to: REFUND_TO, deadline }),
    );
    const attach = { to: REFUND_TO, deadline: Number(deadline), signatures: { [String(CHAIN_ID)]: sig } };
    expect((await s.call("POST", `/sessions/${id}/standing-refund`, attach)).statusCode).toBe(200);

    const calls = [1, 2, 3].map(() =>
      s.call("POST", `/sessions/${id}/refund-all`, { token: USDC, chain_id: CHAIN_ID }),
    );
    await new Promise((r) => setTimeout(r, 50));
    const txHash = `0x${"aa".repeat(32)}` as Hex;
    await executorReports(s, id, { type: "TransactionSubmitted", txHash });
    const answers = (await Promise.all(calls)).map((r) => [r.statusCode, r.json()]);
    const one = { tx_hash: txHash, refund_address: REFUND_TO, token: USDC, amount: "full" };
    expect(answers).toEqual([
      [200, one],
      [200, one],
      [200, one],
    ]);
    expect(s.service.record(id)?.session.refunds).toHaveLength(1);
  });

  it("refund-all of an asset never deposited is 409 asset_not_deposited and starts no refund", async () => {
    const s = await setup();
    const { id, burner } = await session(s);
    await s.service.commands.send({
      type: "ExpireSession",
      data: { sessionId: id, now: NOW_S + 7200 },
      metadata: { commandId: `expire:${id}`, issuedAt: START_MS, replyTo: null },
    });
    const deadline = BigInt(NOW_S + 3600);
    const sig = await burner.account.signTypedData(
      standingRefundTypedData(CHAIN_ID, burner.address, { to: REFUND_TO, deadline }),
    );
    const attach = { to: REFUND_TO, deadline: Number(deadline), signatures: { [String(CHAIN_ID)]: sig } };
    expect((await s.call("POST", `/sessions/${id}/standing-refund`, attach)).statusCode).toBe(200);
    s.chain.setBalance(0n);
    const res = await s.call("POST", `/sessions/${id}/refund-all`, { token: USDC, chain_id: CHAIN_ID });
    expect([res.statusCode, res.json().error]).toEqual([
      409,
      expect.stringMatching(/no deposit of this token/),
    ]);
    // Judged by the owner on the balance the gateway read: refused, no refund recorded.
    expect(sentOf(s, "RequestRefundAll")[0]?.data).toMatchObject({ onChain: { balance: 0n, dustFloor: 1n } });
    expect(s.service.record(id)?.session.refunds).toEqual([]);
  });

  it("refund-all is refused on a pending session, reads `native` as the zero address, and 502s without an RPC", async () => {
    const s = await setup();
    const { id } = await session(s);
    const res = await s.call("POST", `/sessions/${id}/refund-all`, { token: "native", chain_id: CHAIN_ID });
    expect([res.statusCode, res.json().error]).toEqual([409, expect.stringMatching(/expired or failed/)]);
    expect(sentOf(s, "RequestRefundAll")[0]?.data).toEqual({
      sessionId: id,
      chainId: CHAIN_ID,
      token: zeroAddress,
      onChain: { balance: 100n, dustFloor: 1n },
    });
    s.chain.setDown(true);
    const down = await s.call("POST", `/sessions/${id}/refund-all`, { token: USDC, chain_id: CHAIN_ID });
    expect(down.statusCode).toBe(502);
    expect(sentOf(s, "RequestRefundAll")).toHaveLength(1);
    const bad = await s.call("POST", `/sessions/${id}/refund-all`, { token: "eth", chain_id: CHAIN_ID });
    expect(bad.statusCode).toBe(400);
  });
});

describe("settlement settings", () => {
  it("PLATFORM_FEE_BPS defaults to 80 and is refused above the 100 bps cap", () => {
    expect(parseConfig({}).PLATFORM_FEE_BPS).toBe(80);
    expect(parseConfig({}).QUOTE_SLIPPAGE_BPS).toBe(50);
    expect(() => parseConfig({ PLATFORM_FEE_BPS: "101" })).toThrow(ConfigError);
    expect(parseConfig({ PLATFORM_FEE_BPS: "100" }).PLATFORM_FEE_BPS).toBe(100);
  });
});
