import { randomUUID } from "node:crypto";
import { type Address, createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toViemChain } from "../../deploy/local/chains.ts";
import { testErc20Abi } from "../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import {
  type ApiClient,
  commit,
  createApiClient,
  getSession,
  makeBurner,
  newBurner,
  refund,
  signIntent,
  signRefund,
  waitForDetection,
  waitForStatus,
} from "../../src/client/index.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../src/kafka/topics.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { waitFor } from "../support/actor-host.ts";
import { codecs } from "../support/codecs.ts";
import { type Ctx, fund, setUpChains, tokenBalance, ZERO } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";

// Deposits are what the operator accepts (docs/SECURITY.md): a stranger's own ERC-20 sends a Transfer to
// a merchant session's burner ahead of the real payment. On the real stack (Kafka, Cassandra, the anvil
// chains, every role in this process), the fake is recorded as an unsupported deposit and changes
// nothing else: no detection, no payment.detected, no relayer transaction; the USDC that follows settles.

const T = 180_000;
const OPERATOR_SECRET = `operator-${"f".repeat(40)}`;

let service: TestService;
let client: ApiClient;
let A: Ctx;
let B: Ctx;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, INDEXER_POLL_MS: "250" },
  });
  const ctx = await setUpChains();
  [A, B] = [ctx("source"), ctx("destination")];
  client = createApiClient({ baseUrl: service.url });
}, T);
afterAll(async () => {
  await service?.stop();
}, T);

async function post(path: string, key: string, body: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the answers of two routes this test reads a few fields of
  return { status: res.status, body: (await res.json()) as any };
}

/** A P2P session from a merchant's pk_-tagged widget: the merchant's, so its webhooks would fire. */
async function merchantSession() {
  const m = await post("/v1/operator/merchants", OPERATOR_SECRET, {
    name: "Fake Deposit Shop",
    email: `fake-${randomUUID()}@merchant.test`,
  });
  expect(m.status).toBe(201);
  const burner = await newBurner(A.chain);
  const destination = { address: makeBurner().address, chainId: B.chain.chainId };
  const created = await post("/sessions", m.body.publishable_key, {
    burner_address: burner.address,
    eip7702_auth: burner.eip7702Auth,
    destination_address: destination.address,
    destination_chain: destination.chainId,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { id: created.body.id as string, merchantId: m.body.merchant.id as string, burner, destination };
}

/** A stranger with a fresh key, a little gas, and an ERC-20 of their own (TestERC20, 6 decimals, "USDC"). */
async function strangerToken() {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(A, account.address, ZERO, 10n ** 17n);
  const wallet = createWalletClient({
    account,
    chain: toViemChain(A.chain),
    transport: http(A.chain.rpcUrl),
  });
  const { TestERC20 } = (await loadArtifacts()).contracts;
  const deployed = await A.client.waitForTransactionReceipt({
    hash: await wallet.deployContract({
      abi: testErc20Abi,
      bytecode: TestERC20.bytecode,
      args: ["USD Coin", "USDC", 6, account.address],
    }),
  });
  const token = deployed.contractAddress as Address;
  /** Mints to `to`: a Transfer log from the zero address, as a real deposit's log looks. */
  const send = async (to: Address, amount: bigint) => {
    const hash = await wallet.writeContract({
      address: token,
      abi: testErc20Abi,
      functionName: "mint",
      args: [to, amount],
    });
    expect((await A.client.waitForTransactionReceipt({ hash })).status).toBe("success");
    return hash;
  };
  return { token, send };
}

/** The relayer's next nonce on each chain: any transaction it sends moves one. */
const relayerNonces = () =>
  Promise.all(
    [A, B].map((c) =>
      c.client.getTransactionCount({ address: c.chain.relayer.address as Address, blockTag: "pending" }),
    ),
  );

/** The webhook.events records of one session written after `from`. */
async function webhooksOf(sessionId: string, from: Map<number, bigint>): Promise<string[]> {
  const types: string[] = [];
  await readTopic(service.kafka, {
    topic: TOPIC.webhookEvents,
    from,
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        const w = codecs.webhookEvent.decode(r.value);
        if (w.sessionId === sessionId) types.push(w.eventType);
      }
    },
  });
  return types;
}

describe("a stranger's fake Transfer to a merchant session's burner, ahead of the real payment", () => {
  it(
    "is recorded as unsupported and changes nothing; the real USDC deposit that follows settles; the fake is refundable",
    async () => {
      const { id, burner, destination } = await merchantSession();
      const stranger = await strangerToken();
      const webhooksFrom = await stableEndOffsets(service.kafka, TOPIC.webhookEvents);
      const noncesBefore = await relayerNonces();

      const fakeTx = await stranger.send(burner.address, 25_000_000n);
      const faked = await waitFor(
        "the fake deposit on the Session object",
        async () => {
          const s = await getSession(client, { id });
          return s.unsupported_deposits.length > 0 ? s : undefined;
        },
        60_000,
      );
      expect(faked).toMatchObject({
        status: "pending",
        source_chain_id: null,
        detected_token: null,
        detected_amount: null,
        detected_tx: null,
        deposits: [],
        unsupported_deposits: [
          {
            chain_id: A.chain.chainId,
            token: stranger.token.toLowerCase(),
            amount: "25000000",
            tx: fakeTx,
            log_index: 0,
            reason: "token_not_accepted",
          },
        ],
      });
      // The decision was made when the deposit was recorded: anything it asked of the relayer or a
      // merchant would already be on its way. Nothing is.
      expect(await relayerNonces()).toEqual(noncesBefore);
      expect(await webhooksOf(id, webhooksFrom)).toEqual([]);

      // The payment itself: detected, signed for, committed and swept to the destination.
      await fund(A, burner.address, A.chain.usdc, 25_000_000n);
      const detected = await waitForDetection(client, { id, timeout: 60_000 });
      expect(detected).toMatchObject({
        status: "detected",
        source_chain_id: A.chain.chainId,
        detected_token: A.chain.usdc.toLowerCase(),
        detected_amount: "25000000",
      });
      expect(detected.detected_tx).not.toBe(fakeTx);
      expect(await webhooksOf(id, webhooksFrom)).toEqual(["payment.detected"]);

      const signed = await signIntent({
        signer: burner.account,
        session: detected,
        quote: null,
        destination,
      });
      await commit(client, { id, burner, signed });
      const swept = await waitForStatus(client, { id, status: "swept", timeout: 120_000 });
      expect(swept).toMatchObject({
        status: "swept",
        outcome: "succeeded",
        detected_token: A.chain.usdc.toLowerCase(),
      });
      expect(swept.unsupported_deposits).toHaveLength(1);
      expect(await tokenBalance(B, destination.address)).toBe(BigInt(swept.settled_amount ?? -1));
      // The sweep moved the USDC only: the stranger's tokens are still the burner's.
      expect(await tokenBalance(A, burner.address, stranger.token)).toBe(25_000_000n);

      // Never dropped: the burner's holder can send them on (here, back) with a burner-signed refund.
      const to = makeBurner().address;
      const body = await signRefund({
        signer: burner.account,
        chainId: A.chain.chainId,
        token: stranger.token,
        to,
        amount: 25_000_000n,
      });
      await refund(client, { id, refund: body });
      const refunded = await waitFor(
        "the refund of the unsupported deposit",
        async () => {
          const s = await getSession(client, { id });
          return s.refunds.some((r) => r.status === "confirmed") ? s : undefined;
        },
        60_000,
      );
      expect(refunded.refunds).toEqual([
        expect.objectContaining({
          kind: "refund",
          token: expect.stringMatching(new RegExp(`^${stranger.token}$`, "i")),
          amount: "25000000",
        }),
      ]);
      expect(await tokenBalance(A, to, stranger.token)).toBe(25_000_000n);
    },
    T,
  );
});
