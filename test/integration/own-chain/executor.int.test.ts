// The executor role on real servers: ExecutorCommand records in, ExecutorResult records out, real EIP-7702
// sweeps, the Uniswap pool and the CCTP-shaped bridge on two anvils of the file's own with a local attester
// of its own (so it runs in the off-chain lane, beside the files on the stack's chains). Every outcome is
// checked on chain (balances, code), not only in the results. A command record that cannot be read is
// parked on the dead-letter topic and the partition goes on.
import { type Address, concat, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { DEV_ACCOUNTS } from "../../../deploy/local/chains.ts";
import { refundTypedData, standingRefundTypedData } from "../../../src/chains/evm/typed-data/eip712.ts";
import { kafkajs } from "../../../src/kafka/client.ts";
import { listParked } from "../../../src/kafka/dead-letter.ts";
import type { ExecutorCommand } from "../../../src/records/executor-commands.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { type Ctx, fund, intentFor, newBurner, now, tokenBalance, usdc } from "../../support/delegate.ts";
import { type executorBus, executorTestBed, settleCommand } from "../../support/executor.ts";

const T = 120_000;
const randomAddress = () => privateKeyToAddress(generatePrivateKey());
const feeSink = DEV_ACCOUNTS.platformFeeRecipient.address;

const { bed, executor } = executorTestBed({ ownChains: true });
let src: Ctx;
let dst: Ctx;
let bus: ReturnType<typeof executorBus>;
beforeAll(async () => {
  ({ src, dst, bus } = bed);
  await executor();
}, 240_000);

const later = async (c: Ctx) => (await now(c)) + 3600n;

describe("Settle", () => {
  it(
    "sweeps a same-chain USDC deposit: submitted, then confirmed with the Swept amounts; the recipient and the fee sink are paid",
    async () => {
      const b = await newBurner(src, usdc(25));
      const intent = intentFor(src, { deadline: await later(src), minOut: usdc(24) });
      const feesBefore = await tokenBalance(src, feeSink);
      const cmd = await settleCommand(src, b, intent, 80);
      await bus.send(cmd);

      const submitted = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
      const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed");
      expect(swept.txHash).toBe(submitted.txHash);
      expect(swept).toMatchObject({
        amountIn: usdc(25),
        swapOutputAmount: usdc(25),
        feeAmount: usdc(0.2),
        appFeeAmount: 0n,
        deliveredAmount: usdc(24.8),
        bridged: false,
        swapped: false,
      });
      expect(await tokenBalance(src, intent.destAddr)).toBe(usdc(24.8));
      expect((await tokenBalance(src, feeSink)) - feesBefore).toBe(usdc(0.2));
      expect(await tokenBalance(src, b.burner.address)).toBe(0n);
      expect(await src.client.getCode({ address: b.burner.address })).toBe(
        concat(["0xef0100", src.chain.delegate]).toLowerCase(),
      );
    },
    T,
  );

  it(
    "settles across chains: the sweep burns, the executor fetches the attestation and relays it; the destination balance grows by exactly what was delivered",
    async () => {
      const b = await newBurner(src, usdc(40));
      const intent = intentFor(src, {
        deadline: await later(src),
        minOut: usdc(40),
        destChainId: BigInt(dst.chain.chainId),
      });
      const cmd = await settleCommand(src, b, intent, 50);
      await bus.send(cmd);

      const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed");
      expect(swept).toMatchObject({ bridged: true, deliveredAmount: usdc(39.8), feeAmount: usdc(0.2) });
      const relayed = await bus.waitFor(cmd.commandId, "BridgeRelayed");
      expect(relayed).toMatchObject({ destChainId: dst.chain.chainId, mintedAmount: usdc(39.8) });
      expect(await tokenBalance(dst, intent.destAddr)).toBe(usdc(39.8));
      const receipt = await dst.client.getTransactionReceipt({ hash: relayed.txHash });
      expect(receipt.status).toBe("success");
      expect(bus.of(cmd.commandId).some((r) => r.type === "ExecutionFailed")).toBe(false);
    },
    T,
  );

  it(
    "fails for good, naming the revert, when min_out is above what the pool gives; nothing is sent and nothing moves",
    async () => {
      const dai = src.chain.dex?.dai as Address;
      const b = await newBurner(src, 0n);
      await fund(src, b.burner.address, dai, 10n ** 18n * 10n);
      // 10 DAI buys just under 10 USDC in the 1:1 pool (0.3% fee): ask for 11.
      const intent = intentFor(src, {
        deadline: await later(src),
        inToken: dai,
        maxIn: 10n ** 19n,
        minOut: usdc(11),
      });
      const cmd = await settleCommand(src, b, intent);
      await bus.send(cmd);

      const failed = await bus.waitFor(cmd.commandId, "ExecutionFailed");
      expect(failed.retryable).toBe(false);
      expect(failed.errorMessage).toMatch(/INSUFFICIENT_OUTPUT_AMOUNT/);
      expect(failed.txHash).toBeNull();
      expect(bus.of(cmd.commandId).map((r) => r.type)).toEqual(["ExecutionFailed"]);
      expect(await tokenBalance(src, b.burner.address, dai)).toBe(10n ** 19n);
      expect(await tokenBalance(src, intent.destAddr)).toBe(0n);
    },
    T,
  );

  it(
    "detects an authorization the chain skipped (wrong nonce): the transaction mines, the effect check fails it",
    async () => {
      const b = await newBurner(src, usdc(5));
      const stale = await b.burner.signAuthorization({
        address: src.chain.delegate,
        chainId: src.chain.chainId,
        nonce: b.auth.nonce + 7,
      });
      const intent = intentFor(src, { deadline: await later(src), minOut: usdc(4) });
      const cmd = await settleCommand(src, { burner: b.burner, auth: stale }, intent);
      await bus.send(cmd);

      const failed = await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => !r.retryable);
      expect(failed.errorMessage).toMatch(/authorization was not applied/);
      const submitted = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
      expect(failed.txHash).toBe(submitted.txHash);
      // The transaction itself "succeeded" against an account with no code.
      expect((await src.client.getTransactionReceipt({ hash: submitted.txHash as Hex })).status).toBe(
        "success",
      );
      expect(await src.client.getCode({ address: b.burner.address })).toBeUndefined();
      expect(await tokenBalance(src, b.burner.address)).toBe(usdc(5));
      expect(bus.of(cmd.commandId).some((r) => r.type === "SweepConfirmed")).toBe(false);
    },
    T,
  );
});

describe("Refund and RefundAll", () => {
  /** A burner that delegates already (its sweep ran) and holds `amount` USDC again: money that came late. */
  async function sweptBurnerHolding(amount: bigint) {
    const b = await newBurner(src, usdc(1));
    const cmd = await settleCommand(src, b, intentFor(src, { deadline: await later(src) }));
    await bus.send(cmd);
    await bus.waitFor(cmd.commandId, "SweepConfirmed");
    await fund(src, b.burner.address, src.chain.usdc, amount);
    return b;
  }
  const base = (sessionId: string, commandId: string): Omit<ExecutorCommand, "command"> => ({
    commandId,
    issuedAt: Date.now(),
    sessionId,
    chainId: src.chain.chainId,
  });

  it(
    "runs a burner-signed Refund: submitted, then confirmed once the amount reached the signed recipient",
    async () => {
      const b = await sweptBurnerHolding(usdc(7));
      const to = randomAddress();
      const message = {
        token: src.chain.usdc,
        to,
        amount: usdc(3),
        deadline: await later(src),
        salt: generatePrivateKey(),
      };
      const signature = await b.burner.signTypedData(
        refundTypedData(src.chain.chainId, b.burner.address, message),
      );
      const sessionId = crypto.randomUUID();
      const cmd: ExecutorCommand = {
        ...base(sessionId, `${sessionId}:refund:${src.chain.chainId}:${message.salt}`),
        command: {
          type: "Refund",
          burner: b.burner.address,
          token: message.token,
          to,
          amount: message.amount,
          deadline: Number(message.deadline),
          salt: message.salt,
          signature,
          auth: null,
        },
      };
      await bus.send(cmd);
      const confirmed = await bus.waitFor(cmd.commandId, "TransactionConfirmed");
      const submitted = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
      expect(confirmed.txHash).toBe(submitted.txHash);
      // What the relayer paid, from the receipt: the session records it against its gas budget.
      const receipt = await src.client.getTransactionReceipt({ hash: confirmed.txHash as Hex });
      expect(confirmed.gas).toEqual({
        gasUsed: receipt.gasUsed,
        feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
      });
      expect(await tokenBalance(src, to)).toBe(usdc(3));
      expect(await tokenBalance(src, b.burner.address)).toBe(usdc(4));
    },
    T,
  );

  it(
    "runs the standing refund (RefundAll): the burner's whole balance of the token goes to the pinned recipient",
    async () => {
      const b = await sweptBurnerHolding(usdc(9));
      const to = randomAddress();
      const deadline = await later(src);
      const signature = await b.burner.signTypedData(
        standingRefundTypedData(src.chain.chainId, b.burner.address, { to, deadline }),
      );
      const sessionId = crypto.randomUUID();
      const cmd: ExecutorCommand = {
        ...base(sessionId, `${sessionId}:refund-all:${src.chain.chainId}:${src.chain.usdc}:1`),
        command: {
          type: "RefundAll",
          burner: b.burner.address,
          token: src.chain.usdc,
          to,
          deadline: Number(deadline),
          signature,
          auth: null,
        },
      };
      await bus.send(cmd);
      await bus.waitFor(cmd.commandId, "TransactionConfirmed");
      expect(await tokenBalance(src, to)).toBe(usdc(9));
      expect(await tokenBalance(src, b.burner.address)).toBe(0n);
    },
    T,
  );

  /** A burner that never delegated (an expired session's) holding 2 USDC, and its standing refund. */
  async function undelegatedBurner() {
    const burner = privateKeyToAccount(generatePrivateKey());
    await fund(src, burner.address, src.chain.usdc, usdc(2));
    const to = randomAddress();
    const deadline = await later(src);
    const signature = await burner.signTypedData(
      standingRefundTypedData(src.chain.chainId, burner.address, { to, deadline }),
    );
    const auth = await burner.signAuthorization({
      address: src.chain.delegate,
      chainId: src.chain.chainId,
      nonce: 0,
    });
    const sessionId = crypto.randomUUID();
    const command = (withAuth: boolean): ExecutorCommand => ({
      ...base(
        sessionId,
        `${sessionId}:refund-all:${src.chain.chainId}:${src.chain.usdc}:${withAuth ? 1 : 0}`,
      ),
      command: {
        type: "RefundAll",
        burner: burner.address,
        token: src.chain.usdc,
        to,
        deadline: Number(deadline),
        signature: signature as Hex,
        auth: withAuth
          ? {
              address: auth.address,
              chainId: auth.chainId,
              nonce: auth.nonce,
              r: auth.r,
              s: auth.s,
              yParity: auth.yParity ?? 0,
            }
          : null,
      },
    });
    return { burner, to, command };
  }

  it(
    "refuses a RefundAll for a burner that never delegated when the command carries no authorization; nothing is sent",
    async () => {
      const { burner, command } = await undelegatedBurner();
      const cmd = command(false);
      await bus.send(cmd);
      const failed = await bus.waitFor(cmd.commandId, "ExecutionFailed");
      expect(failed).toMatchObject({ retryable: false, txHash: null });
      expect(failed.errorMessage).toMatch(/does not delegate.*no authorization/);
      expect(await tokenBalance(src, burner.address)).toBe(usdc(2));
    },
    T,
  );

  it(
    "delegates a burner that never delegated in the refund's own type-4 transaction, with the command's authorization",
    async () => {
      const { burner, to, command } = await undelegatedBurner();
      const cmd = command(true);
      await bus.send(cmd);
      await bus.waitFor(cmd.commandId, "TransactionConfirmed");
      expect(await tokenBalance(src, to)).toBe(usdc(2));
      expect(await tokenBalance(src, burner.address)).toBe(0n);
      expect((await src.client.getCode({ address: burner.address }))?.toLowerCase()).toBe(
        `0xef0100${src.chain.delegate.slice(2).toLowerCase()}`,
      );
    },
    T,
  );

  it(
    "answers a command it does not carry out (Sweep) with a terminal ExecutionFailed",
    async () => {
      const sessionId = crypto.randomUUID();
      const cmd: ExecutorCommand = {
        ...base(sessionId, `${sessionId}:sweep`),
        command: { type: "Sweep", burner: randomAddress(), token: src.chain.usdc, amount: 1n },
      };
      await bus.send(cmd);
      const failed = await bus.waitFor(cmd.commandId, "ExecutionFailed");
      expect(failed).toMatchObject({ retryable: false, errorMessage: "unsupported command Sweep" });
    },
    T,
  );

  it(
    "parks a command record it cannot read on the dead-letter topic, and the session's next command goes on",
    async () => {
      const sessionId = crypto.randomUUID();
      const producer = kafkajs(bed.service.kafka).producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const [sent] = await producer
        .send({
          topic: TOPIC.executorCommands,
          acks: -1,
          messages: [{ key: sessionId, value: Buffer.from("not an executor command") }],
        })
        .finally(() => producer.disconnect());
      // The same key, so the same partition, behind the record that cannot be read.
      const cmd: ExecutorCommand = {
        ...base(sessionId, `${sessionId}:sweep`),
        command: { type: "Sweep", burner: randomAddress(), token: src.chain.usdc, amount: 1n },
      };
      await bus.send(cmd);
      await bus.waitFor(cmd.commandId, "ExecutionFailed");
      const parked = await waitFor("the record parked", async () =>
        (await listParked(bed.service.kafka, codecs.deadLetter)).find(
          (p) =>
            p.letter.topic === TOPIC.executorCommands &&
            p.letter.partition === sent?.partition &&
            p.letter.offset === Number(sent?.baseOffset),
        ),
      );
      expect(parked.letter).toMatchObject({
        kind: "parked",
        group: "executor",
        key: Buffer.from(sessionId).toString("base64"),
        value: Buffer.from("not an executor command").toString("base64"),
        errorCode: "record_malformed",
      });
    },
    T,
  );
});
