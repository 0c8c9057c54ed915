// Refunds, expiry and money that arrives at the wrong time, end to end on the real stack: Kafka,
// Cassandra, the two anvil chains (one-second blocks) and every role in this process, the executor
// included. Driven through the payer's client library; balances are read on chain. Sessions live 30 s
// (long enough for every other test's session to settle): the two that must expire are opened before anything else,
// so their wait runs while the other tests do.
import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiClient,
  attachStandingRefund,
  type Burner,
  commit,
  createApiClient,
  createSession,
  getQuote,
  getSession,
  makeBurner,
  newBurner,
  refund,
  refundAll,
  type Session,
  signIntent,
  signRefund,
  signStandingRefund,
  waitForDetection,
} from "../../src/client/index.ts";
import { stableEndOffsets } from "../../src/kafka/topics.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { type Ctx, fund, setUpChains, tokenBalance, ZERO } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";

let service: TestService;
let client: ApiClient;
let A: Ctx;
/** Opened first, with a standing refund for chain A: expires, then receives money. */
let lateWithRefund: { id: string; burner: Burner; payer: Address };
/** Opened first, without a standing refund: expires, receives money, gets one attached afterwards. */
let lateWithout: { id: string; burner: Burner };

const fresh = () => makeBurner().address;
const dai = () => (A.chain.dex as { dai: Address }).dai;
const same = (a: string) => expect.stringMatching(new RegExp(`^${a}$`, "i"));
const TX = expect.stringMatching(/^0x[0-9a-f]{64}$/);

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "executor", "gateway"],
    env: {
      SESSION_TTL_SECONDS: "30",
      INDEXER_POLL_MS: "250",
      // A sweep that reverts is given up on after two quick tries, so a failed session shows in seconds.
      EXECUTOR_MAX_ATTEMPTS: "2",
      EXECUTOR_RETRY_BASE_MS: "100",
      // Every request comes from 127.0.0.1, and the tests poll.
      RATE_LIMIT_PER_SECOND: "100000",
      RATE_LIMIT_BURST: "100000",
    },
  });
  A = (await setUpChains())("source");
  client = createApiClient({ baseUrl: service.url });
  const withRefund = await newBurner(A.chain);
  const payer = fresh();
  lateWithRefund = { id: (await open(withRefund, payer)).id, burner: withRefund, payer };
  const without = await newBurner(A.chain);
  lateWithout = { id: (await open(without)).id, burner: without };
}, 180_000);
afterAll(async () => {
  await service?.stop();
});

/** The burner's StandingRefund to `to`, signed for chain A. */
const standingRefundTo = (burner: Burner, to: Address) =>
  signStandingRefund({ signer: burner.account, to, chainIds: [A.chain.chainId] });

/** A session of the burner paying a fresh address on chain A, with a standing refund to `refundTo` if given. */
async function open(burner: Burner, refundTo?: Address) {
  const destination = { address: fresh(), chainId: A.chain.chainId };
  const standingRefund = refundTo && (await standingRefundTo(burner, refundTo));
  const { id } = await createSession(client, { burner, destination, standingRefund });
  return { id, destination };
}

const until = (id: string, pred: (s: Session) => boolean, timeoutMs?: number) =>
  sessionUntil(client, id, pred, timeoutMs);
const allConfirmed = (n: number) => (s: Session) =>
  s.refunds.length === n && s.refunds.every((r) => r.status === "confirmed");

/**
 * A session on chain A holding `amount` DAI whose sweep fails: the Intent's min_out is twice what the
 * pool gives, so the swap reverts and the executor gives up. The burner never delegated.
 */
async function failedSession(amount: bigint, refundTo?: Address) {
  const burner = await newBurner(A.chain);
  const { id, destination } = await open(burner, refundTo);
  await fund(A, burner.address, dai(), amount);
  const session = await waitForDetection(client, { id, timeout: 60_000 });
  const quote = await getQuote(client, { id });
  const greedy = { ...quote, suggested_min_out: (BigInt(quote.estimated_out) * 2n).toString() };
  await commit(client, {
    id,
    burner,
    // The payer's own estimate is the pool's: the greedy floor is above it, which the library allows.
    signed: await signIntent({
      signer: burner.account,
      session,
      quote: greedy,
      destination,
      ownEstimatedOut: BigInt(quote.estimated_out),
    }),
  });
  return { id, burner, failed: await until(id, (s) => s.status === "failed", 90_000) };
}

describe("refund-all", () => {
  it("is refused on a pending session (409), which does not change", async () => {
    const { id } = await open(await newBurner(A.chain), fresh());
    const before = await getSession(client, { id });
    await expect(refundAll(client, { id, chainId: A.chain.chainId, token: "native" })).rejects.toMatchObject({
      status: 409,
      serverMessage: expect.stringMatching(/expired or failed/),
    });
    expect(await getSession(client, { id })).toEqual(before);
  });

  it("concurrent calls on a failed session answer one transaction, which returns the whole balance once", async () => {
    const amount = 3n * 10n ** 18n;
    const { id, burner, failed } = await failedSession(amount);
    // No standing refund: the money stays in the burner, refundable.
    expect(failed.refunds).toEqual([]);
    expect(await tokenBalance(A, burner.address, dai())).toBe(amount);

    // Attached to a failed session, the standing refund runs at once; calls made while it is in
    // flight join it.
    const payer = fresh();
    await attachStandingRefund(client, { id, standingRefund: await standingRefundTo(burner, payer) });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => refundAll(client, { id, chainId: A.chain.chainId, token: dai() })),
    );
    const one = { tx_hash: TX, refund_address: same(payer), token: same(dai()), amount: "full" };
    expect(answers).toEqual(Array(5).fill(one));
    expect(new Set(answers.map((a) => a.tx_hash)).size).toBe(1);

    const ended = await until(id, allConfirmed(1));
    expect(ended.refunds).toEqual([
      expect.objectContaining({ kind: "refund_all", tx_hash: answers[0]?.tx_hash, amount: "full" }),
    ]);
    expect(ended.status).toBe("failed");
    expect(await tokenBalance(A, payer, dai())).toBe(amount);
    expect(await tokenBalance(A, burner.address, dai())).toBe(0n);
  }, 180_000);
});

describe("the automatic bounce (the poller)", () => {
  it("a session that fails with a standing refund sends the deposit back with no call, and money that comes later", async () => {
    const amount = 2n * 10n ** 18n;
    const payer = fresh();
    const { id, burner } = await failedSession(amount, payer);
    const ended = await until(id, allConfirmed(1));
    expect(ended).toMatchObject({ status: "failed", error_message: expect.any(String) });
    expect(ended.refunds).toEqual([
      expect.objectContaining({
        kind: "refund_all",
        chain_id: A.chain.chainId,
        token: same(dai()),
        to: same(payer),
        amount: "full",
        tx_hash: TX,
        error_message: null,
      }),
    ]);
    expect(await tokenBalance(A, payer, dai())).toBe(amount);
    expect(await tokenBalance(A, burner.address, dai())).toBe(0n);

    // Asked for afterwards, with nothing left to move, refund-all answers the bounce's transaction.
    const again = await refundAll(client, { id, chainId: A.chain.chainId, token: dai() });
    expect(again.tx_hash).toBe(ended.refunds[0]?.tx_hash);
    expect((await getSession(client, { id })).refunds).toEqual(ended.refunds);

    // More of it after the failure: bounced too, by a second record and transaction.
    await fund(A, burner.address, dai(), amount);
    const twice = await until(id, allConfirmed(2));
    expect(twice.deposits).toHaveLength(2);
    expect(twice.refunds[1]).toMatchObject({ kind: "refund_all", to: same(payer), tx_hash: TX });
    expect(twice.refunds[1]?.tx_hash).not.toBe(ended.refunds[0]?.tx_hash);
    expect(await tokenBalance(A, payer, dai())).toBe(2n * amount);
  }, 180_000);
});

describe("POST /sessions/:id/refund", () => {
  it("a burner-signed Refund of a detected session's deposit (never delegated) moves it, and no webhook is written", async () => {
    const burner = await newBurner(A.chain);
    const { id } = await open(burner);
    const webhooksBefore = await stableEndOffsets(service.kafka, TOPIC.webhookEvents);
    await fund(A, burner.address, A.chain.usdc, 2_500_000n);
    await waitForDetection(client, { id, timeout: 60_000 });
    expect(await A.client.getCode({ address: burner.address })).toBeUndefined();

    const to = fresh();
    const body = await signRefund({
      signer: burner.account,
      chainId: A.chain.chainId,
      token: A.chain.usdc,
      to,
      amount: 2_000_000n,
    });
    const answer = await refund(client, { id, refund: body });
    expect(answer).toEqual({ tx_hash: TX, to: same(to), token: same(A.chain.usdc) });
    const ended = await until(id, allConfirmed(1));
    expect(ended.refunds).toEqual([
      expect.objectContaining({ kind: "refund", amount: "2000000", tx_hash: answer.tx_hash }),
    ]);
    expect(await tokenBalance(A, to)).toBe(2_000_000n);
    expect(await tokenBalance(A, burner.address)).toBe(500_000n);
    // An anonymous session has no merchant: not payment.detected, nor payment.refunded, nor anything.
    expect(await stableEndOffsets(service.kafka, TOPIC.webhookEvents)).toEqual(webhooksBefore);
  }, 120_000);
});

describe("expiry and late money", () => {
  it("money that reaches an expired session with a standing refund bounces to its recipient, with no call", async () => {
    const { id, burner, payer } = lateWithRefund;
    const expired = await until(id, (s) => s.status === "expired", 120_000);
    expect(expired).toMatchObject({ deposits: [], refunds: [] });

    await fund(A, burner.address, A.chain.usdc, 1_500_000n);
    const ended = await until(id, allConfirmed(1));
    expect(ended.status).toBe("expired");
    expect(ended.deposits).toEqual([
      expect.objectContaining({ chain_id: A.chain.chainId, token: same(A.chain.usdc), amount: "1500000" }),
    ]);
    expect(ended.refunds).toEqual([
      expect.objectContaining({ kind: "refund_all", to: same(payer), amount: "full", tx_hash: TX }),
    ]);
    expect(await tokenBalance(A, payer)).toBe(1_500_000n);
    expect(await tokenBalance(A, burner.address)).toBe(0n);
  }, 180_000);

  it("without a standing refund the money stays (refund-all: 409); one attached afterwards bounces every asset at once", async () => {
    const { id, burner } = lateWithout;
    await until(id, (s) => s.status === "expired", 120_000);
    await fund(A, burner.address, A.chain.usdc, 700_000n);
    await fund(A, burner.address, ZERO, 10n ** 15n);
    const holding = await until(id, (s) => s.deposits.length === 2);
    expect(holding).toMatchObject({ status: "expired", refunds: [] });
    await expect(
      refundAll(client, { id, chainId: A.chain.chainId, token: A.chain.usdc }),
    ).rejects.toMatchObject({ status: 409, serverMessage: expect.stringMatching(/no standing refund/) });
    expect(await tokenBalance(A, burner.address)).toBe(700_000n);

    const payer = fresh();
    await attachStandingRefund(client, { id, standingRefund: await standingRefundTo(burner, payer) });
    const ended = await until(id, allConfirmed(2));
    expect(ended.status).toBe("expired");
    expect(ended.refunds.map((r) => [r.kind, r.token.toLowerCase(), r.to.toLowerCase()]).sort()).toEqual(
      [
        ["refund_all", A.chain.usdc.toLowerCase(), payer.toLowerCase()],
        ["refund_all", ZERO, payer.toLowerCase()],
      ].sort(),
    );
    expect(await tokenBalance(A, payer)).toBe(700_000n);
    expect(await tokenBalance(A, payer, ZERO)).toBe(10n ** 15n);
    expect(await tokenBalance(A, burner.address, ZERO)).toBe(0n);
  }, 180_000);
});
