import type {
  ExecutorCommand,
  ExecutorResult,
  MerchantCommand,
  MerchantEvent,
  WebhookEvent,
} from "../../src/kafka/records.ts";
import { type Gen, generator } from "./generate.ts";

/**
 * Seeded generators of the executor, webhook and merchant records, on top of generate.ts's `Gen`
 * (same seed, same values). Every union branch is reached within a few dozen seeds.
 */
export interface RecordGen {
  executorCommand(): ExecutorCommand;
  executorResult(): ExecutorResult;
  webhookEvent(): WebhookEvent;
  merchantCommand(): MerchantCommand;
  merchantEvent(): MerchantEvent;
}

export function recordGenerator(seed: number): RecordGen {
  const g: Gen = generator(seed);
  const ms = () => g.int(1_600_000_000_000, 1_900_000_000_000);
  const secs = () => g.int(1_600_000_000, 1_900_000_000);
  const chainId = () => g.pick([1, 8453, 31337, 11297108109]);
  const work = (): ExecutorCommand["command"] => {
    switch (g.int(0, 4)) {
      case 4:
        return {
          type: "Settle",
          burner: g.address(),
          auth: g.authorization(),
          intent: g.intent(),
          signature: g.hex(65),
          feeBps: g.int(0, 100),
        };
      case 0:
        return { type: "Sweep", burner: g.address(), token: g.address(), amount: g.amount() };
      case 1:
        return {
          type: "Refund",
          burner: g.address(),
          token: g.address(),
          to: g.address(),
          amount: g.amount(),
          deadline: secs(),
          salt: g.hex(32),
          signature: g.hex(65),
          auth: g.maybe(g.authorization),
        };
      case 2:
        return {
          type: "RefundAll",
          burner: g.address(),
          token: g.address(),
          to: g.address(),
          deadline: secs(),
          signature: g.hex(65),
          auth: g.maybe(g.authorization),
        };
      default:
        return {
          type: "Charge",
          subscriptionId: g.uuid(),
          periodIndex: g.int(0, 1_000),
          token: g.address(),
          amount: g.amount(),
        };
    }
  };
  const outcome = (): ExecutorResult["result"] => {
    switch (g.int(0, 4)) {
      case 3:
        return {
          type: "SweepConfirmed",
          txHash: g.hex(32),
          blockNumber: BigInt(g.int(0, 2 ** 40)),
          amountIn: g.amount(),
          swapOutputAmount: g.amount(),
          feeAmount: g.amount(),
          appFeeAmount: g.amount(),
          deliveredAmount: g.amount(),
          bridged: g.bool(),
          swapped: g.bool(),
        };
      case 4: {
        const destChainId = chainId();
        return {
          type: "BridgeRelayed",
          txHash: g.hex(32),
          blockNumber: BigInt(g.int(0, 2 ** 40)),
          destChainId,
          mintedAmount: g.amount(),
        };
      }
      case 0:
        return { type: "TransactionSubmitted", txHash: g.hex(32) };
      case 1:
        return { type: "TransactionConfirmed", txHash: g.hex(32), blockNumber: BigInt(g.int(0, 2 ** 40)) };
      default:
        return {
          type: "ExecutionFailed",
          errorMessage: g.text(),
          retryable: g.bool(),
          txHash: g.maybe(() => g.hex(32)),
        };
    }
  };
  const endpoint = () => ({ endpointId: g.uuid(), url: `https://merchant.example/${g.uuid()}` });
  return {
    executorCommand: () => ({
      commandId: g.uuid(),
      issuedAt: ms(),
      sessionId: g.maybe(g.uuid),
      chainId: chainId(),
      command: work(),
    }),
    executorResult: () => ({
      commandId: g.uuid(),
      sessionId: g.maybe(g.uuid),
      chainId: chainId(),
      occurredAt: ms(),
      result: outcome(),
    }),
    webhookEvent: () => ({
      idempotencyKey: `${g.uuid()}:payment.detected`,
      merchantId: g.uuid(),
      eventType: g.pick(["payment.detected", "payment.succeeded", "subscription.charged"]),
      sessionId: g.maybe(g.uuid),
      payload: JSON.stringify({ id: g.uuid(), note: g.text() }),
      createdAt: ms(),
    }),
    merchantCommand: () => ({
      commandId: g.uuid(),
      issuedAt: ms(),
      replyTo: g.maybe(() => ({ gatewayId: `gw-${g.int(0, 9)}`, correlationId: g.uuid() })),
      merchantId: g.uuid(),
      command: g.bool() ? { type: "SetWebhookEndpoint", ...endpoint() } : { type: "RemoveWebhookEndpoint" },
    }),
    merchantEvent: () => ({
      merchantId: g.uuid(),
      version: g.int(1, 10_000),
      occurredAt: ms(),
      commandId: g.uuid(),
      event: g.bool() ? { type: "WebhookEndpointSet", ...endpoint() } : { type: "WebhookEndpointRemoved" },
    }),
  };
}
