// The EVM family's stranger (test/e2e/stranger.e2e.test.ts): anonymous P2P sessions on the source anvil
// with the stranger's own burner and EIP-7702 authorization, paid from the stack's funded account,
// refunds signed by the burner; a merchant's pk_-tagged session for the fake token, whose webhooks show
// what the fake changed. The copied stealth withdrawal runs on a private anvil with mining paused, as a
// public mempool lets a stranger copy the relayer's pending StealthRelay.withdraw.
import { randomUUID } from "node:crypto";
import { Keypair } from "@solana/web3.js";
import { type Address, createTestClient, createWalletClient, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { toViemChain } from "../../../deploy/local/chains.ts";
import { testErc20Abi } from "../../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../../src/chains/evm/contracts.ts";
import {
  type Burner,
  commit,
  createApiClient,
  makeBurner,
  newBurner,
  type Session,
  signIntent,
  signRefund,
  signStandingRefund,
} from "../../../src/client/index.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { codecs } from "../codecs.ts";
import { type Ctx, fund, tokenBalance, ZERO } from "../delegate.ts";
import { requestJson } from "../http.ts";
import type { TestService } from "../service.ts";
import { sessionUntil } from "../session-poll.ts";
import { solanaChainIdOf } from "../solana-node.ts";
import { copyStealthWithdrawal } from "./evm-stealth-copy.ts";
import { type Case, refusal, type StrangerKit, settledDown } from "./kit.ts";

const fresh = () => makeBurner().address;

type Held = { id: string; burner: Burner; payer: Address };

export function evmStranger(svc: TestService, A: Ctx, B: Ctx, operatorSecret: string): StrangerKit {
  const client = createApiClient({ baseUrl: svc.url });
  const api = (path: string, body?: unknown, key?: string) =>
    requestJson(svc.url, path, { body, ...(key ? { key } : {}) });
  const until = (id: string, pred: (s: Session) => boolean, ms?: number) =>
    sessionUntil(client, id, pred, ms);
  const onA = String(A.chain.chainId);
  const onB = String(B.chain.chainId);
  const s = {} as Record<
    "empty" | "dust" | "dustBounce" | "lateDust" | "control" | "expiring" | "dustFill" | "otherFamily",
    Held
  >;
  const fake = {} as Held & {
    token: Address;
    /** The fake's mint transaction. */
    tx: string;
    webhooksFrom: Map<number, bigint>;
    dest: Address;
  };

  /**
   * A session of a fresh burner paying a fresh address on `chainId`; with `standing`, the burner's
   * standing refund to its payer (the bounce the relayer pays once the session ended holding money).
   */
  async function open(
    opts: { chainId?: number; key?: string; standing?: boolean } = {},
  ): Promise<Held & { dest: Address }> {
    const burner = await newBurner(A.chain);
    const payer = fresh();
    const standing = opts.standing
      ? {
          standing_refund: await signStandingRefund({
            signer: burner.account,
            to: payer,
            chainIds: [A.chain.chainId],
          }),
        }
      : {};
    const dest = fresh();
    const created = await api(
      "/sessions",
      {
        burner_address: burner.address,
        eip7702_auth: burner.eip7702Auth,
        destination_address: dest,
        destination_chain: opts.chainId ?? A.chain.chainId,
        ...standing,
      },
      opts.key,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return { id: created.body.id, burner, payer, dest };
  }
  const sign = (h: Held, token: Address, to: Address, amount: bigint) =>
    signRefund({ signer: h.burner.account, chainId: A.chain.chainId, token, to, amount });
  const refund = async (h: Held, token: Address, to: Address, amount: bigint) =>
    api(`/sessions/${h.id}/refund`, await sign(h, token, to, amount));
  const refundAll = (h: Held, token: Address | "native") =>
    api(`/sessions/${h.id}/refund-all`, { token, chain_id: A.chain.chainId });
  /** The webhook.events records of one session written after `from`. */
  async function webhooksOf(sessionId: string, from: Map<number, bigint>): Promise<string[]> {
    const types: string[] = [];
    await readTopic(svc.kafka, {
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

  return {
    family: "EVM",

    async setUp() {
      const [empty, dust, dustBounce, lateDust, control, expiring, dustFill, otherFamily] = await Promise.all(
        [
          open({ standing: true }),
          open(),
          open({ standing: true }),
          open({ standing: true }),
          open(),
          open({ standing: true }),
          open({ chainId: B.chain.chainId }),
          // The only destination on the Solana chain an EVM session can name: a 0x address (nativeToOtherFamily).
          open({ chainId: solanaChainIdOf(svc) }),
        ],
      );
      Object.assign(s, { empty, dust, dustBounce, lateDust, control, expiring, dustFill, otherFamily });
      // One funded account pays them all: its nonce orders the transfers.
      await fund(A, s.dust.burner.address, ZERO, 1n); // below the native minimum: unsupported
      await fund(A, s.control.burner.address, A.chain.usdc, 2_000_000n);
      await fund(A, s.dustFill.burner.address, A.chain.usdc, 50_000n); // 0.05 USDC, above the 0.01 minimum
      await fund(A, s.otherFamily.burner.address, ZERO, 10n ** 15n);
      await Promise.all([
        until(s.dust.id, (x) => x.unsupported_deposits.length > 0),
        ...[s.control, s.dustFill, s.otherFamily].map((h) => until(h.id, (x) => x.status === "detected")),
      ]);
    },

    async expired() {
      await Promise.all(Object.values(s).map((h) => until(h.id, settledDown, 120_000)));
    },

    async nativeToOtherFamily() {
      // The Intent signs an EVM dest_addr, so a Solana address is refused at creation; a 0x address on
      // the Solana chain is taken, and ETH paid to it reaches there by no route: refused at commit.
      const h = s.otherFamily;
      const burner = await newBurner(A.chain);
      const detected = await until(h.id, () => true);
      expect(detected).toMatchObject({ detected_token: ZERO, detected_amount: String(10n ** 15n) });
      const signed = await signIntent({ signer: h.burner.account, session: detected, quote: null });
      return {
        refusals: [
          refusal(
            "a session paying a Solana address",
            () =>
              api("/sessions", {
                burner_address: burner.address,
                eip7702_auth: burner.eip7702Auth,
                destination_address: Keypair.generate().publicKey.toBase58(),
                destination_chain: solanaChainIdOf(svc),
              }),
            400,
            /must be a 0x address/,
          ),
          refusal(
            "the commit of 0.001 ETH to the Solana chain",
            () => api(`/sessions/${h.id}/commit`, commitBody(h, signed)),
            409,
            /cannot be moved from chain/,
          ),
        ],
        async check() {
          expect(await until(h.id, () => true)).toMatchObject({ status: "detected", sweep_tx: null });
          expect(await tokenBalance(A, h.burner.address, ZERO)).toBe(10n ** 15n);
        },
      };
    },

    async dustFastFill() {
      // EVM's cross-chain delivery is a CCTP burn relayed on the destination: the same floor (minDelivery).
      const h = s.dustFill;
      const detected = await until(h.id, () => true);
      const signed = await signIntent({ signer: h.burner.account, session: detected, quote: null });
      return {
        refusals: [
          refusal(
            "0.05 USDC to chain B",
            () => api(`/sessions/${h.id}/commit`, commitBody(h, signed)),
            409,
            /below its minimum of 100000: refund it instead/,
          ),
        ],
        async check() {
          expect(await tokenBalance(A, h.burner.address)).toBe(50_000n);
          expect(await until(h.id, () => true)).toMatchObject({ status: "detected", sweep_tx: null });
        },
      };
    },

    async registerWithoutDeposit() {
      const opened: Held[] = [];
      return {
        refusals: [],
        async quiet() {
          for (let i = 0; i < 3; i++) opened.push(await open({ standing: true }));
        },
        async check() {
          for (const h of opened) {
            // Never delegated: the relayer sent no type-4 transaction for a burner that holds nothing.
            expect(await A.client.getCode({ address: h.burner.address })).toBeUndefined();
            expect(await until(h.id, () => true)).toMatchObject({ status: "pending", deposits: [] });
          }
        },
      };
    },

    async fakeToken() {
      const m = await api(
        "/v1/operator/merchants",
        { name: "Fake Deposit Shop", email: `fake-${randomUUID()}@merchant.test` },
        operatorSecret,
      );
      expect(m.status).toBe(201);
      Object.assign(fake, await open({ chainId: B.chain.chainId, key: m.body.publishable_key }));
      fake.webhooksFrom = await stableEndOffsets(svc.kafka, TOPIC.webhookEvents);
      return {
        refusals: [],
        async quiet() {
          // The stranger's own ERC-20 (TestERC20, 6 decimals, named "USDC"), minted to the burner: a
          // Transfer from the zero address, as a real deposit's log looks.
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
          fake.token = deployed.contractAddress as Address;
          fake.tx = await wallet.writeContract({
            address: fake.token,
            abi: testErc20Abi,
            functionName: "mint",
            args: [fake.burner.address, 25_000_000n],
          });
          expect((await A.client.waitForTransactionReceipt({ hash: fake.tx as Address })).status).toBe(
            "success",
          );
          await until(fake.id, (x) => x.unsupported_deposits.length > 0);
        },
        async check() {
          expect(await until(fake.id, () => true)).toMatchObject({
            status: "pending",
            source_chain_id: null,
            detected_token: null,
            detected_amount: null,
            detected_tx: null,
            deposits: [],
            unsupported_deposits: [
              {
                chain_id: A.chain.chainId,
                token: fake.token.toLowerCase(),
                amount: "25000000",
                tx: fake.tx,
                log_index: 0,
                reason: "token_not_accepted",
              },
            ],
          });
          // The merchant heard nothing of it.
          expect(await webhooksOf(fake.id, fake.webhooksFrom)).toEqual([]);
        },
      };
    },

    async fakeTokenThenRealPayment() {
      let settled: Session | undefined;
      return {
        refusals: [],
        control: {
          what: "the USDC that follows: swept on A, its CCTP message relayed on B",
          transactions: { [onA]: 1, [onB]: 1 },
          async run() {
            await fund(A, fake.burner.address, A.chain.usdc, 25_000_000n);
            const detected = await until(fake.id, (x) => x.status === "detected");
            expect(detected).toMatchObject({
              detected_token: A.chain.usdc.toLowerCase(),
              detected_amount: "25000000",
            });
            expect(detected.detected_tx).not.toBe(fake.tx);
            // The merchant hears of the real payment, once.
            expect(await webhooksOf(fake.id, fake.webhooksFrom)).toEqual(["payment.detected"]);
            const signed = await signIntent({ signer: fake.burner.account, session: detected, quote: null });
            await commit(client, { id: fake.id, burner: fake.burner, signed });
            settled = await until(fake.id, (x) => x.status === "swept" || x.status === "failed", 120_000);
          },
        },
        async check() {
          expect(settled).toMatchObject({ status: "swept", outcome: "succeeded" });
          expect(settled?.unsupported_deposits).toHaveLength(1);
          expect(await tokenBalance(B, fake.dest)).toBe(BigInt(settled?.settled_amount ?? -1));
          // The sweep moved the USDC only: the stranger's tokens are still the burner's.
          expect(await tokenBalance(A, fake.burner.address, fake.token)).toBe(25_000_000n);
          expect(await webhooksOf(fake.id, fake.webhooksFrom)).toContain("payment.detected");
        },
      };
    },

    async refundBeforeDeposit() {
      const h = s.empty;
      return {
        refusals: [
          refusal(
            "USDC",
            () => refund(h, A.chain.usdc, fresh(), 1_000_000n),
            409,
            /no deposit of this token/,
          ),
          refusal("ETH", () => refund(h, ZERO, fresh(), 10n ** 15n), 409, /no deposit|holds none|dust/),
          refusal("refund-all ETH", () => refundAll(h, "native"), 409, /no deposit|nothing/),
        ],
        async check() {
          expect((await until(h.id, () => true)).refunds).toEqual([]);
        },
      };
    },

    async selfRefunds() {
      const h = s.dust;
      const self = h.burner.address;
      return {
        // The measured attack: four signed refunds of 1 wei to the burner itself.
        refusals: Array.from({ length: 4 }, (_, i) =>
          refusal(`to the burner itself #${i + 1}`, () => refund(h, ZERO, self, 1n), 400, /burner itself/),
        ),
        async check() {
          expect(await tokenBalance(A, self, ZERO)).toBe(1n);
          expect((await until(h.id, () => true)).refunds).toEqual([]);
        },
      };
    },

    async dustRefunds() {
      const h = s.dust;
      expect((await until(h.id, () => true)).unsupported_deposits).toHaveLength(1);
      return {
        refusals: [
          // To someone else, 1 wei is worth less than the gas that would move it.
          refusal("1 wei", () => refund(h, ZERO, fresh(), 1n), 409, /dust/),
          refusal("more than it holds", () => refund(h, ZERO, fresh(), 2n), 409, /the refund asks/),
          // An accepted USDC deposit (0.05, five times the minimum) is dust as well: its gas costs more.
          refusal("0.05 USDC", () => refund(s.dustFill, A.chain.usdc, fresh(), 50_000n), 409, /dust/),
          // USDC was never deposited here: the chain answered, so this is a 409 (it was a retryable 502).
          refusal(
            "USDC",
            () => refund(h, A.chain.usdc, fresh(), 1_000_000n),
            409,
            /no deposit of this token/,
          ),
        ],
        async check() {
          expect((await until(h.id, () => true)).refunds).toEqual([]);
          expect(await tokenBalance(A, h.burner.address, ZERO)).toBe(1n);
        },
      };
    },

    dustWithConsent() {
      const h = s.dustBounce;
      return {
        pay: () => fund(A, h.burner.address, A.chain.usdc, 10_000n),
        async check() {
          expect(await until(h.id, () => true)).toMatchObject({
            status: "expired",
            deposits: [{ amount: "10000" }],
            refunds: [],
          });
          expect(await tokenBalance(A, h.burner.address)).toBe(10_000n);
        },
      };
    },

    async lateDust() {
      // A bounce of 0.01 USDC costs the relayer more gas than it moves (the refund route calls 0.05 dust).
      const h = s.lateDust;
      return {
        async quiet() {
          await fund(A, h.burner.address, A.chain.usdc, 10_000n);
          await until(h.id, (x) => x.deposits.length === 1 && settledDown(x));
        },
        refusals: [],
        async check() {
          expect(await until(h.id, () => true)).toMatchObject({ status: "expired", refunds: [] });
          expect(await tokenBalance(A, h.burner.address)).toBe(10_000n);
        },
      };
    },

    async realRefund() {
      const h = s.control;
      const to = fresh();
      return {
        // After the control, 500,000 are left: a refund of more is refused before anything is sent.
        refusals: [
          refusal(
            "more than is left",
            () => refund(h, A.chain.usdc, fresh(), 600_000n),
            409,
            /the refund asks/,
          ),
        ],
        control: {
          what: "1.5 of the 2 USDC deposited",
          transactions: { [onA]: 1 },
          async run() {
            const answer = await refund(h, A.chain.usdc, to, 1_500_000n);
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            const done = await until(h.id, (x) => x.refunds[0]?.status === "confirmed");
            expect(done.refunds[0]).toMatchObject({
              kind: "refund",
              tx_hash: answer.body.tx_hash,
              amount: "1500000",
            });
          },
        },
        async check() {
          expect(await tokenBalance(A, to)).toBe(1_500_000n);
          await expectGasCounted(svc, A.chain.chainId);
        },
      };
    },

    async refundAllLoop() {
      const { burner, payer } = s.expiring;
      const h = s.expiring;
      const anvil = createTestClient({ mode: "anvil", transport: http(A.chain.rpcUrl) });
      let bounceTx: string | undefined;
      return {
        control: {
          what: "late ETH bounced once to the standing refund's recipient",
          transactions: { [onA]: 1 },
          async run() {
            await fund(A, burner.address, ZERO, 10n ** 15n);
            const bounced = await until(
              h.id,
              (x) => x.refunds.length === 1 && x.refunds[0]?.status === "confirmed",
            );
            bounceTx = bounced.refunds[0]?.tx_hash ?? undefined;
            expect(await tokenBalance(A, payer, ZERO)).toBe(10n ** 15n);
          },
        },
        async quiet() {
          // Nothing left: refund-all answers the bounce's own transaction and starts nothing.
          const again = await refundAll(h, "native");
          expect([again.status, again.body.tx_hash]).toEqual([200, bounceTx]);
          // A positive balance no deposit brought (set on the node, as a transfer the indexer never sees).
          await anvil.setBalance({ address: burner.address, value: 10n ** 17n });
        },
        refusals: [
          ...Array.from({ length: 3 }, (_, i) =>
            refusal(
              `refund-all #${i + 1}`,
              () => refundAll(h, "native"),
              409,
              /no deposit of this asset arrived/,
            ),
          ),
          refusal(
            "refund-all of dust",
            async () => {
              await anvil.setBalance({ address: burner.address, value: 1n });
              return refundAll(h, "native");
            },
            409,
            /dust/,
          ),
          refusal("refund-all USDC", () => refundAll(h, A.chain.usdc), 409, /no deposit of this token/),
        ],
        async check() {
          expect((await until(h.id, () => true)).refunds).toHaveLength(1);
        },
      };
    },

    async fakeTokenRefund() {
      // EVM refunds move any token the burner holds: the stranger's tokens are never dropped, and the
      // burner-signed refund of them is relayed (the gas floor is judged on the chain's price).
      const to = fresh();
      return {
        refusals: [],
        control: {
          what: "the 25 fake tokens sent on",
          transactions: { [onA]: 1 },
          async run() {
            const answer = await refund(fake, fake.token, to, 25_000_000n);
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            await until(fake.id, (x) => x.refunds.some((r) => r.status === "confirmed"));
          },
        },
        async check() {
          expect((await until(fake.id, () => true)).refunds).toEqual([
            expect.objectContaining({
              kind: "refund",
              token: expect.stringMatching(new RegExp(`^${fake.token}$`, "i")),
              amount: "25000000",
            }),
          ]);
          expect(await tokenBalance(A, to, fake.token)).toBe(25_000_000n);
        },
      };
    },

    async nativeToOtherFamilyReturned(): Promise<Case> {
      const h = s.otherFamily;
      const inventory = await tokenBalance(B, B.chain.relayer.address);
      return {
        refusals: [],
        control: {
          what: "the refused ETH back to its payer in kind",
          transactions: { [onA]: 1 },
          async run() {
            const answer = await refund(h, ZERO, h.payer, 10n ** 15n);
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            await until(h.id, (x) => x.refunds[0]?.status === "confirmed");
          },
        },
        async check() {
          expect(await tokenBalance(A, h.payer, ZERO)).toBe(10n ** 15n);
          // Nothing was swapped, bridged or filled for it.
          expect(await tokenBalance(B, B.chain.relayer.address)).toBe(inventory);
        },
      };
    },

    copiedStealthWithdrawal: copyStealthWithdrawal,
    // Played on a chain of its own (evm-stealth-copy.ts): the stack's relayer sends nothing for it.
    copiedStealthTransactions: {},
  };
}

/** POST /sessions/:id/commit's body for a signed Intent. */
const commitBody = (h: Held, signed: Awaited<ReturnType<typeof signIntent>>) => ({
  burner: h.burner.address,
  eip7702_auth: h.burner.eip7702Auth,
  intent: signed.intent,
  intent_sigs: { [String(signed.chainId)]: signed.signature },
});

/** The relayer's gas for the control refund is on the metric the projector exports. */
async function expectGasCounted(svc: TestService, chainId: number) {
  const series = `settlement_relayer_gas_used_total{chain_id="${chainId}"}`;
  const gasUsed = async () => {
    const metrics = await (await fetch(`${svc.metricsUrl}/metrics`)).text();
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
}
