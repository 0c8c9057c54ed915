import type { Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { burnerDelegateAbi } from "../../src/chains/evm/abi.ts";
import {
  type ApiClient,
  type Burner,
  ClientError,
  commit,
  createApiClient,
  createSession,
  getQuote,
  getSession,
  makeBurner,
  newBurner,
  payDetectThenSign,
  quoteOnChain,
  refund,
  refundAll,
  type Session,
  signIntent,
  signRefund,
  signStandingRefund,
  waitForDetection,
  waitForStatus,
} from "../../src/client/index.ts";
import { type Ctx, fund, setUpChains, tokenBalance, ZERO } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";

// The detect-then-sign flow driven through the payer's client library against the real service on the
// local stack: Kafka, Cassandra, the two anvil chains with the delegate, Uniswap V2 and the CCTP-shaped
// bridge, every role in this process. Each test pays to a fresh destination, so balances start at 0.

let service: TestService;
let client: ApiClient;
let A: Ctx;
let B: Ctx;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    // A sweep that reverts is given up on after two quick tries, so a failed session shows in seconds.
    env: {
      SSE_KEEPALIVE_MS: "500",
      INDEXER_POLL_MS: "250",
      EXECUTOR_MAX_ATTEMPTS: "2",
      EXECUTOR_RETRY_BASE_MS: "100",
    },
  });
  const ctx = await setUpChains();
  [A, B] = [ctx("source"), ctx("destination")];
  client = createApiClient({ baseUrl: service.url });
});
afterAll(async () => {
  await service?.stop();
});

const fresh = () => makeBurner().address;
const usdcOf = (c: Ctx) => ({ [c.chain.chainId]: c.chain.usdc });
const dai = (c: Ctx) => (c.chain.dex as { dai: Address }).dai;

/** Every settlement field the spec lists is filled on a swept session. */
function expectSettled(s: Session, crossChain: boolean) {
  expect(s).toMatchObject({ status: "swept", outcome: "succeeded", error_message: null });
  for (const field of ["sweep_tx", "swap_output_amount", "fee_amount", "dest_tx"] as const)
    expect(s[field], field).toEqual(expect.any(String));
  if (crossChain) {
    expect(s.bridge_amount).toEqual(expect.any(String));
    expect(s.bridge_tx).toBe(s.sweep_tx);
  }
}

/** The USDC the destination got: the swap's output (the amount for USDC) less the platform fee (no app fee on P2P). */
const delivered = (s: Session) => BigInt(s.swap_output_amount ?? "0") - BigInt(s.fee_amount ?? "0");

async function pay(
  burner: Burner,
  destination: { address: Address; chainId: number },
  deposit: () => Promise<void>,
) {
  return payDetectThenSign(client, {
    burner,
    destination,
    usdc: usdcOf(A),
    publicClient: A.client, // the payer's own RPC: a swapped deposit's min_out is checked against it
    onCreated: deposit,
    detectionTimeout: 60_000,
    settlementTimeout: 90_000,
  });
}

describe("the detect-then-sign flow through the client library", () => {
  it("USDC on A to B: detected over SSE, committed, swept; B's balance grows by exactly what was settled", async () => {
    const burner = await newBurner(A.chain);
    const destination = { address: fresh(), chainId: B.chain.chainId };
    const feeRecipient = await A.client.readContract({
      address: A.chain.delegate,
      abi: burnerDelegateAbi,
      functionName: "PLATFORM_FEE_RECIPIENT",
    });
    const feesBefore = await tokenBalance(A, feeRecipient);
    const seen: string[] = [];
    const { detected, quote, signed, committed, settled } = await payDetectThenSign(client, {
      burner,
      destination,
      usdc: usdcOf(A),
      onCreated: () => fund(A, burner.address, A.chain.usdc, 25_000_000n),
      onSession: (s) => seen.push(s.status),
      detectionTimeout: 60_000,
      settlementTimeout: 90_000,
    });
    expect(detected).toMatchObject({
      detected_token: A.chain.usdc.toLowerCase(),
      detected_amount: "25000000",
    });
    expect(quote).toBeNull();
    expect(signed.intent).toMatchObject({
      min_out: "25000000",
      max_in: "25000000",
      dest_chain_id: B.chain.chainId,
    });
    expect(committed).toMatchObject({
      status: "detected",
      fee_bps: 80,
      app_fee_bps: 0,
      app_fee_recipient: ZERO,
    });
    expectSettled(settled, true);
    expect(settled.fee_amount).toBe(((25_000_000n * 80n) / 10_000n).toString());
    expect(seen).toContain("detected");
    expect(seen.at(-1)).toBe("swept");
    expect(await tokenBalance(B, destination.address)).toBe(delivered(settled));
    expect(await tokenBalance(A, burner.address)).toBe(0n);
    // The platform fee landed at its recipient on the source chain, in the sweep.
    expect((await tokenBalance(A, feeRecipient)) - feesBefore).toBe(BigInt(settled.fee_amount ?? "-1"));
  });

  it("DAI on A to A: quoted, swapped through the pool with the quote's floor, delivered on the same chain", async () => {
    const burner = await newBurner(A.chain);
    const destination = { address: fresh(), chainId: A.chain.chainId };
    const amount = 10n * 10n ** 18n;
    const { quote, signed, settled } = await pay(burner, destination, () =>
      fund(A, burner.address, dai(A), amount),
    );
    expect(quote).not.toBeNull();
    expect(BigInt(quote?.suggested_min_out ?? "0")).toBeLessThanOrEqual(BigInt(quote?.estimated_out ?? "0"));
    expect(signed.intent).toMatchObject({ in_token: dai(A).toLowerCase(), max_in: amount.toString() });
    expect(signed.intent.min_out).toBe(quote?.suggested_min_out);
    expectSettled(settled, false);
    expect(BigInt(settled.swap_output_amount ?? "0")).toBeGreaterThanOrEqual(BigInt(signed.intent.min_out));
    expect(await tokenBalance(A, destination.address)).toBe(delivered(settled));
    expect(await tokenBalance(A, burner.address, dai(A))).toBe(0n);
  });

  it("native ETH on A to B: wrapped, swapped and bridged", async () => {
    const burner = await newBurner(A.chain);
    const destination = { address: fresh(), chainId: B.chain.chainId };
    const { detected, settled } = await pay(burner, destination, () =>
      fund(A, burner.address, ZERO, 10n ** 16n),
    );
    expect(detected.detected_token).toBe(ZERO);
    expectSettled(settled, true);
    expect(await tokenBalance(B, destination.address)).toBe(delivered(settled));
  });
});

describe("what the service refuses, through the client", () => {
  /** A session with a detected USDC deposit, not committed. */
  async function detectedSession(amount = 5_000_000n) {
    const burner = await newBurner(A.chain);
    const destination = { address: fresh(), chainId: B.chain.chainId };
    const { id } = await createSession(client, { burner, destination });
    await fund(A, burner.address, A.chain.usdc, amount);
    const session = await waitForDetection(client, { id, timeout: 60_000 });
    return { burner, destination, id, session };
  }

  it("a commit before any deposit is commit_failed (409), not retried", async () => {
    const burner = await newBurner(A.chain);
    const { id } = await createSession(client, {
      burner,
      destination: { address: fresh(), chainId: B.chain.chainId },
    });
    // Sign as if 1 USDC had arrived: the service has seen nothing.
    const pending = await getSession(client, { id });
    const asIfDetected = {
      ...pending,
      status: "detected",
      source_chain_id: A.chain.chainId,
      detected_token: A.chain.usdc,
      detected_amount: "1000000",
      detected_tx: `0x${"00".repeat(32)}`,
    } as Session;
    const signed = await signIntent({ signer: burner.account, session: asIfDetected, quote: null });
    const err = await commit(client, { id, burner, signed }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({
      code: "commit_failed",
      retryable: false,
      cause: { kind: "http", status: 409 },
    });
  });

  it("an Intent signed by another key, or with another recipient, is refused and moves nothing; the right one then settles", async () => {
    const { burner, destination, id, session } = await detectedSession();
    const other = makeBurner();
    const right = await signIntent({ signer: burner.account, session, quote: null, destination });

    const byOther = await signIntent({
      signer: { address: burner.address, signTypedData: other.account.signTypedData },
      session,
      quote: null,
    });
    await expect(commit(client, { id, burner, signed: byOther })).rejects.toMatchObject({
      code: "commit_failed",
      retryable: false,
      cause: { status: 400 },
    });

    const elsewhere = await signIntent({
      signer: burner.account,
      session: { ...session, dest_address: fresh().toLowerCase() },
      quote: null,
    });
    await expect(commit(client, { id, burner, signed: elsewhere })).rejects.toMatchObject({
      code: "commit_failed",
      cause: { status: 400 },
    });
    expect(await getSession(client, { id })).toMatchObject({ status: "detected", sweep_tx: null });
    expect(await tokenBalance(A, burner.address)).toBe(5_000_000n);

    // The refusals changed nothing: the burner's own Intent commits, and a retried identical commit
    // is answered as the first was.
    const first = await commit(client, { id, burner, signed: right });
    expect(await commit(client, { id, burner, signed: right })).toEqual(first);
    const settled = await waitForStatus(client, { id, status: "swept", timeout: 90_000 });
    expect(await tokenBalance(B, destination.address)).toBe(delivered(settled));
  });

  it("min_out above what the pool gives: the sweep fails, nothing is delivered, the standing refund sends it back", async () => {
    const burner = await newBurner(A.chain);
    const payer = fresh();
    const standingRefund = await signStandingRefund({
      signer: burner.account,
      to: payer,
      chainIds: [A.chain.chainId],
    });
    const destination = { address: fresh(), chainId: A.chain.chainId };
    const { id } = await createSession(client, { burner, destination, standingRefund });
    const amount = 2n * 10n ** 18n;
    await fund(A, burner.address, dai(A), amount);
    const session = await waitForDetection(client, { id, timeout: 60_000 });
    const quote = await getQuote(client, { id });
    // The payer's own quote reads the same pool through the delegate's router: the service's estimate.
    const own = await quoteOnChain(A.client, { delegate: A.chain.delegate, token: dai(A), amountIn: amount });
    expect(own).toBe(BigInt(quote.estimated_out));
    const greedy = { ...quote, suggested_min_out: (BigInt(quote.estimated_out) * 2n).toString() };
    const signed = await signIntent({
      signer: burner.account,
      session,
      quote: greedy,
      destination,
      ownEstimatedOut: own,
    });
    await commit(client, { id, burner, signed });

    const ended = await waitForStatus(client, { id, status: "swept", timeout: 90_000 }).catch(
      (e: unknown) => e,
    );
    expect(ended).toMatchObject({
      name: "SessionEndedError",
      code: "unknown",
      session: { status: "failed" },
    });
    expect((ended as { session: Session }).session.error_message).toEqual(expect.any(String));
    expect(await tokenBalance(A, destination.address)).toBe(0n);
    // The session failed with a standing refund for the chain: the service bounces the DAI to the payer.
    await expect.poll(() => tokenBalance(A, payer, dai(A)), { timeout: 60_000, interval: 500 }).toBe(amount);
    expect(await tokenBalance(A, burner.address, dai(A))).toBe(0n);
  });

  it("a USDC deposit has no quote", async () => {
    const { id } = await detectedSession(1_000_000n);
    await expect(getQuote(client, { id })).rejects.toMatchObject({ kind: "http", status: 409 });
  });

  it("a burner-signed Refund sends the deposit back to the pinned recipient", async () => {
    const { burner, id } = await detectedSession(3_000_000n);
    const to = fresh();
    const body = await signRefund({
      signer: burner.account,
      chainId: A.chain.chainId,
      token: A.chain.usdc,
      to,
      amount: 3_000_000n,
    });
    const answer = await refund(client, { id, refund: body });
    expect(answer).toMatchObject({ tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(answer.to.toLowerCase()).toBe(to.toLowerCase());
    await A.client.waitForTransactionReceipt({ hash: answer.tx_hash as `0x${string}` });
    expect(await tokenBalance(A, to)).toBe(3_000_000n);
  });

  it("refund-all on a pending session is refused, even with a standing refund", async () => {
    const burner = await newBurner(A.chain);
    const standingRefund = await signStandingRefund({
      signer: burner.account,
      to: fresh(),
      chainIds: [A.chain.chainId],
    });
    const { id } = await createSession(client, {
      burner,
      destination: { address: fresh(), chainId: B.chain.chainId },
      standingRefund,
    });
    await expect(
      refundAll(client, { id, chainId: A.chain.chainId, token: A.chain.usdc }),
    ).rejects.toMatchObject({
      kind: "http",
      status: 409,
      retryable: false,
    });
  });
});
