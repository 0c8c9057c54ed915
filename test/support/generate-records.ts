import type { IssuedKey, MerchantCommand, MerchantEvent } from "../../src/domain/merchant/types.ts";
import type { ExecutorCommand } from "../../src/records/executor-commands.ts";
import type { ExecutorResult } from "../../src/records/executor-results.ts";
import type { WebhookEvent } from "../../src/records/webhook-events.ts";
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
  const mandate = () => ({
    payer: g.address(),
    token: g.address(),
    amount: g.amount().toString(),
    period: g.int(1, 31_536_000),
    start: secs(),
    merchantAddress: g.address(),
    appFeeBps: g.int(0, 10_000),
    appFeeRecipient: g.address(),
    salt: g.hex(32),
  });
  const SOL_BURNER = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
  const SOL_MINT = "GJdLMKMT8QAgdVHVYByWJd1Bnxbdw5sGgmewU9AysHya";
  const work = (): ExecutorCommand["command"] => {
    switch (g.int(0, 12)) {
      case 12:
        return {
          type: "Announce",
          scheme: "erc5564-1",
          stealthAddress: g.address(),
          ephemeralPubkey: g.hex(33),
          viewTag: g.int(0, 255),
        };
      case 11:
        return { type: "RelaySolanaRefund", burner: SOL_BURNER, transaction: "AQID" };
      case 10:
        return {
          type: "FastFill",
          to: g.address(),
          amount: g.amount(),
          sourceChainId: chainId(),
          sourceTx:
            "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
        };
      case 7:
        return {
          type: "RelaySolanaSweep",
          transaction: Buffer.from(g.hex(64).slice(2), "hex").toString("base64"),
          amountIn: g.amount(),
          feeAmount: g.amount(),
          appFeeAmount: g.amount(),
          deliveredAmount: g.amount(),
          bridged: g.bool(),
        };
      case 8:
        return { type: "SolanaBounceSetup", burner: SOL_BURNER, transaction: "AQID" };
      case 9:
        return { type: "SolanaBounce", burner: SOL_BURNER, mint: SOL_MINT, to: SOL_BURNER };
      case 5:
        return {
          type: "ChargeSubscription",
          subscriptionId: g.uuid(),
          manager: g.address(),
          mandate: mandate(),
          signature: g.hex(65),
          periodIndex: g.int(0, 1_000),
          attempt: g.int(1, 3),
          feeBps: g.int(0, 100),
        };
      case 6:
        return {
          type: "CancelMandate",
          subscriptionId: g.uuid(),
          manager: g.address(),
          mandate: mandate(),
          signature: g.hex(65),
        };
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
  const gas = () => (g.bool() ? { gasUsed: g.amount(), feeWei: g.amount() } : null);
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
          gas: gas(),
        };
      case 4: {
        const destChainId = chainId();
        return {
          type: "BridgeRelayed",
          txHash: g.hex(32),
          blockNumber: BigInt(g.int(0, 2 ** 40)),
          destChainId,
          mintedAmount: g.amount(),
          gas: gas(),
        };
      }
      case 0:
        return {
          type: "TransactionSubmitted",
          // A Solana signature where the command's chain is Solana.
          txHash: g.pick([
            g.hex(32),
            "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
          ]),
        };
      case 1:
        return {
          type: "TransactionConfirmed",
          txHash: g.hex(32),
          blockNumber: BigInt(g.int(0, 2 ** 40)),
          gas: gas(),
        };
      default:
        return {
          type: "ExecutionFailed",
          errorMessage: g.text(),
          retryable: g.bool(),
          txHash: g.maybe(() => g.hex(32)),
        };
    }
  };
  const pin = () => ({
    sourceChainId: g.int(1, 100_000),
    destAddress: g.hex(20),
    destChainId: g.int(1, 100_000),
  });
  const stealthMeta = () => ({
    spendPubkey: g.hex(33),
    viewPubkey: g.hex(33),
    solSpendPubkey: g.maybe(() => "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"),
    solViewPubkey: g.maybe(() => "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"),
  });
  const appFee = () => ({
    bps: g.int(0, 9900),
    recipient: g.hex(20),
    recipientSol: g.maybe(() => "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"),
  });
  const endpoint = () => ({
    endpointId: g.uuid(),
    url: `https://merchant.example/${g.uuid()}`,
    secret: g.maybe(() => `whsec_${g.uuid()}`),
  });
  const key = (): IssuedKey => {
    const publishable = g.bool();
    return {
      keyId: `key_${g.int(0, 1e9)}`,
      kind: publishable ? "publishable" : "secret",
      hash: g.hex(32).slice(2),
      publishable: publishable ? `pk_test_${g.uuid()}` : null,
      hint: "abcd",
    };
  };
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
    merchantCommand: () => {
      const data = { merchantId: g.uuid() };
      const metadata = {
        commandId: g.uuid(),
        issuedAt: ms(),
        replyTo: g.maybe(() => ({ gatewayId: `gw-${g.int(0, 9)}`, correlationId: g.uuid() })),
      };
      const bodies: MerchantCommand[] = [
        { type: "SetWebhookEndpoint", data: { ...data, ...endpoint() }, metadata },
        { type: "RemoveWebhookEndpoint", data, metadata },
        {
          type: "CreateMerchant",
          data: { ...data, name: g.text(), email: "a@b.test", keys: [key(), key()] },
          metadata,
        },
        { type: "IssueKeys", data: { ...data, keys: [key()] }, metadata },
        { type: "RotateKey", data: { ...data, key: key(), replaces: g.maybe(g.uuid) }, metadata },
        { type: "RevokeKey", data: { ...data, keyId: g.uuid() }, metadata },
        { type: "PinDestination", data: { ...data, ...pin() }, metadata },
        { type: "SetAppFee", data: { ...data, ...appFee() }, metadata },
        { type: "SetSettings", data: { ...data, p2pPinnedDestinationsOnly: g.bool() }, metadata },
        { type: "SetStealthMeta", data: { ...data, ...stealthMeta() }, metadata },
      ];
      return g.pick(bodies);
    },
    merchantEvent: () => {
      const metadata = {
        merchantId: g.uuid(),
        version: g.int(1, 10_000),
        occurredAt: ms(),
        commandId: g.uuid(),
      };
      const events: MerchantEvent[] = [
        { type: "WebhookEndpointSet", data: endpoint(), metadata },
        { type: "WebhookEndpointRemoved", data: {}, metadata },
        { type: "MerchantCreated", data: { name: g.text(), email: "a@b.test" }, metadata },
        { type: "KeyIssued", data: key(), metadata },
        { type: "KeyRevoked", data: { keyId: g.uuid(), hash: g.hex(32).slice(2) }, metadata },
        { type: "DestinationPinned", data: pin(), metadata },
        { type: "AppFeeSet", data: appFee(), metadata },
        { type: "SettingsSet", data: { p2pPinnedDestinationsOnly: g.bool() }, metadata },
        { type: "StealthMetaSet", data: stealthMeta(), metadata },
      ];
      return g.pick(events);
    },
  };
}
