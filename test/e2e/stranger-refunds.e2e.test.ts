// A stranger tries to make the relayer pay for refunds that move nothing (issue 16 item 1), end to end on
// the real stack: Kafka, Cassandra, the local chains and every role in this process, the executor
// included. Each abusive request must be answered with a 4xx that says why, and the relayer's nonce on the
// chain (every transaction it sends, pending ones included) must not move; a control refund of a real
// deposit moves it by exactly one. The expiring session is opened first, so its 30 s run while the other
// tests do.
import { type Address, createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiClient,
  type Burner,
  createApiClient,
  createSession,
  getSession,
  makeBurner,
  newBurner,
  refund,
  refundAll,
  type Session,
  signRefund,
  signStandingRefund,
} from "../../src/client/index.ts";
import { type Ctx, fund, setUpChains, tokenBalance, ZERO } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";

let service: TestService;
let client: ApiClient;
let A: Ctx;
/** Opened first with a standing refund to `payer`: expires, then receives native ETH, which bounces. */
let expiring: { id: string; burner: Burner; payer: Address };

const fresh = () => makeBurner().address;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "executor", "gateway"],
    env: {
      SESSION_TTL_SECONDS: "30",
      INDEXER_POLL_MS: "250",
      RATE_LIMIT_PER_SECOND: "100000",
      RATE_LIMIT_BURST: "100000",
    },
  });
  A = (await setUpChains())("source");
  client = createApiClient({ baseUrl: service.url });
  const burner = await newBurner(A.chain);
  const payer = fresh();
  const standingRefund = await signStandingRefund({
    signer: burner.account,
    to: payer,
    chainIds: [A.chain.chainId],
  });
  const { id } = await createSession(client, {
    burner,
    destination: { address: fresh(), chainId: A.chain.chainId },
    standingRefund,
  });
  expiring = { id, burner, payer };
}, 180_000);
afterAll(async () => {
  await service?.stop();
});

/** Every transaction the relayer has sent on chain A, mined or pending. */
const relayerNonce = () =>
  A.client.getTransactionCount({ address: A.chain.relayer.address, blockTag: "pending" });

/** Runs `abuse` and proves the relayer sent nothing for it. */
async function costsTheRelayerNothing(abuse: () => Promise<void>): Promise<void> {
  const before = await relayerNonce();
  await abuse();
  // The executor would have broadcast within a block; wait two (one-second blocks) before counting.
  await new Promise((r) => setTimeout(r, 2500));
  expect(await relayerNonce()).toBe(before);
}

/** The request fails with this status and a message matching `why`, and the session is unchanged. */
async function refused(id: string, request: Promise<unknown>, status: number, why: RegExp): Promise<void> {
  const before = await getSession(client, { id });
  await expect(request).rejects.toMatchObject({ status, serverMessage: expect.stringMatching(why) });
  expect((await getSession(client, { id })).refunds).toEqual(before.refunds);
}

const until = (id: string, pred: (s: Session) => boolean, timeoutMs?: number) =>
  sessionUntil(client, id, pred, timeoutMs);

/**
 * An anonymous session of the stranger's own burner, holding what `pay` sent it once recorded: as
 * its deposit, or as an unsupported one (1 wei is below the chain's minimum).
 */
async function strangerSession(pay: (burner: Address) => Promise<void>) {
  const burner = await newBurner(A.chain);
  const { id } = await createSession(client, {
    burner,
    destination: { address: fresh(), chainId: A.chain.chainId },
  });
  await pay(burner.address);
  await until(id, (s) => s.deposits.length + s.unsupported_deposits.length > 0);
  const sign = (token: Address, to: Address, amount: bigint) =>
    signRefund({ signer: burner.account, chainId: A.chain.chainId, token, to, amount });
  return { id, burner, sign };
}

describe("a stranger's burner-signed refunds", () => {
  it("1 wei deposited, then refunds to the burner itself, of dust, of more than it holds, of an asset never deposited: each a 4xx, no transaction", async () => {
    const { id, burner, sign } = await strangerSession((b) => fund(A, b, ZERO, 1n));
    // Below the chain's minimum: recorded as an unsupported deposit, still the stranger's to refund.
    expect((await getSession(client, { id })).unsupported_deposits).toHaveLength(1);
    const self = burner.address;
    await costsTheRelayerNothing(async () => {
      // The measured attack: four signed refunds of 1 wei to the burner itself.
      for (let i = 0; i < 4; i++) {
        await refused(id, refund(client, { id, refund: await sign(ZERO, self, 1n) }), 400, /burner itself/);
      }
      // To someone else, 1 wei is worth less than the gas that would move it.
      await refused(id, refund(client, { id, refund: await sign(ZERO, fresh(), 1n) }), 409, /dust/);
      await refused(
        id,
        refund(client, { id, refund: await sign(ZERO, fresh(), 2n) }),
        409,
        /the refund asks/,
      );
      // USDC was never deposited here: the chain answered, so this is a 409 (it was a retryable 502).
      await refused(
        id,
        refund(client, { id, refund: await sign(A.chain.usdc, fresh(), 1_000_000n) }),
        409,
        /no deposit of this token/,
      );
    });
    const session = await getSession(client, { id });
    expect(session.refunds).toEqual([]);
    expect(await tokenBalance(A, self, ZERO)).toBe(1n);
  }, 120_000);

  it("a refund of a real deposit to the payer is relayed: exactly one transaction, and its gas is counted", async () => {
    const { id, sign } = await strangerSession((b) => fund(A, b, A.chain.usdc, 2_000_000n));
    const to = fresh();
    const before = await relayerNonce();
    const answer = await refund(client, { id, refund: await sign(A.chain.usdc, to, 1_500_000n) });
    const done = await until(id, (s) => s.refunds[0]?.status === "confirmed");
    expect(done.refunds[0]).toMatchObject({ kind: "refund", tx_hash: answer.tx_hash, amount: "1500000" });
    expect(await relayerNonce()).toBe(before + 1);
    expect(await tokenBalance(A, to)).toBe(1_500_000n);

    // 500,000 are left: a refund of more is refused before anything is sent.
    await costsTheRelayerNothing(() =>
      refused(
        id,
        sign(A.chain.usdc, fresh(), 600_000n).then((body) => refund(client, { id, refund: body })),
        409,
        /the refund asks/,
      ),
    );
    // The relayer's gas for that transaction is on the metric the projector exports.
    const series = `settlement_relayer_gas_used_total{chain_id="${A.chain.chainId}"}`;
    const gasUsed = async () => {
      const metrics = await (await fetch(`${service.metricsUrl}/metrics`)).text();
      return Number(
        metrics
          .split("\n")
          .find((l) => l.startsWith(series))
          ?.split(" ")
          .at(-1) ?? 0,
      );
    };
    // Counted once the projector's batch is written, which the read above may just precede.
    for (let i = 0; i < 25 && (await gasUsed()) === 0; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await gasUsed()).toBeGreaterThan(21_000);
  }, 120_000);
});

describe("a stranger's refund-all loop", () => {
  it("after the bounce of its deposit, refund-all starts nothing more: not for a balance no deposit brought, nor dust, nor an asset never deposited", async () => {
    const { id, burner, payer } = expiring;
    await until(id, (s) => s.status === "expired", 120_000);
    // Late money bounces once, to the standing refund's recipient (the relayer pays that one).
    await fund(A, burner.address, ZERO, 10n ** 15n);
    const bounced = await until(id, (s) => s.refunds.length === 1 && s.refunds[0]?.status === "confirmed");
    expect(await tokenBalance(A, payer, ZERO)).toBe(10n ** 15n);
    const chainId = A.chain.chainId;

    await costsTheRelayerNothing(async () => {
      // Nothing left: refund-all answers the bounce's own transaction and starts nothing.
      const again = await refundAll(client, { id, chainId, token: "native" });
      expect(again.tx_hash).toBe(bounced.refunds[0]?.tx_hash);
      // A positive balance that no deposit brought (set on the node, as a transfer the indexer never
      // sees would): the loop the issue measured. No new deposit since the last refund-all: 409, every time.
      const anvil = createTestClient({ mode: "anvil", transport: http(A.chain.rpcUrl) });
      await anvil.setBalance({ address: burner.address, value: 10n ** 17n });
      for (let i = 0; i < 3; i++) {
        await refused(
          id,
          refundAll(client, { id, chainId, token: "native" }),
          409,
          /no deposit of this asset arrived/,
        );
      }
      // Dust is refused before anything else is considered.
      await anvil.setBalance({ address: burner.address, value: 1n });
      await refused(id, refundAll(client, { id, chainId, token: "native" }), 409, /dust/);
      await refused(
        id,
        refundAll(client, { id, chainId, token: A.chain.usdc }),
        409,
        /no deposit of this token/,
      );
    });
    expect((await getSession(client, { id })).refunds).toHaveLength(1);
  }, 180_000);
});
