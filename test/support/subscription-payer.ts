// A payer of subscriptions on a local chain of the stack: a fresh key with ETH and USDC, the manager
// approved, mandates and cancels signed, and the webhook events of a subscription read from
// webhook.events (read_committed, every partition from the start).
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import {
  cancelTypedData,
  type MandateMessage,
  mandateTypedData,
} from "../../src/chains/evm/subscriptions/subscriptions.ts";
import type { KafkaClient } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import type { WebhookEvent } from "../../src/records/webhook-events.ts";
import { codecs } from "./codecs.ts";

export const randomAddress = (): Address => privateKeyToAddress(generatePrivateKey());

export function chainClients(chain: LocalChain) {
  const viemChain = toViemChain(chain);
  const transport = http(chain.rpcUrl);
  const client = createPublicClient({ chain: viemChain, transport, pollingInterval: 200 }) as PublicClient;
  const walletOf = (key: Hex) =>
    createWalletClient({
      chain: viemChain,
      transport,
      account: privateKeyToAccount(key),
      pollingInterval: 200,
    });
  return { client, walletOf, funded: walletOf(chain.funded.privateKey) };
}

export type Payer = Awaited<ReturnType<typeof newSubscriptionPayer>>;

/** A fresh payer holding `funds` USDC (from the stack's funded account) with the manager approved for `allowance`. */
export async function newSubscriptionPayer(chain: LocalChain, funds: bigint, allowance: bigint) {
  const manager = chain.subscriptions;
  if (!manager) throw new Error(`${chain.name} has no SubscriptionManager: restart the stack`);
  const { client, walletOf, funded } = chainClients(chain);
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const wallet = walletOf(key);
  const mined = async (hash: Hex) => {
    const r = await client.waitForTransactionReceipt({ hash });
    if (r.status !== "success") throw new Error(`transaction ${hash} reverted`);
  };
  await mined(await funded.sendTransaction({ to: account.address, value: parseEther("0.1") }));
  await mined(
    await funded.writeContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "transfer",
      args: [account.address, funds],
    }),
  );
  const approve = async (amount: bigint) =>
    mined(
      await wallet.writeContract({
        address: chain.usdc,
        abi: testUsdcAbi,
        functionName: "approve",
        args: [manager, amount],
      }),
    );
  await approve(allowance);
  return {
    account,
    wallet,
    manager,
    approve,
    balance: (owner: Address) =>
      client.readContract({
        address: chain.usdc,
        abi: testUsdcAbi,
        functionName: "balanceOf",
        args: [owner],
      }),
    signMandate: (m: MandateMessage) => account.signTypedData(mandateTypedData(chain.chainId, manager, m)),
    signCancel: (digest: Hex) => account.signTypedData(cancelTypedData(chain.chainId, manager, digest)),
  };
}

/** The API body of POST /v1/subscriptions for a mandate. */
export function mandateBody(chainId: number, m: MandateMessage, signature: Hex) {
  return {
    chain_id: chainId,
    signature,
    mandate: {
      payer: m.payer,
      token: m.token,
      amount: m.amount.toString(),
      period: Number(m.period),
      start: Number(m.start),
      merchant: m.merchant,
      app_fee_bps: m.appFeeBps,
      app_fee_recipient: m.appFeeRecipient,
      salt: m.salt,
    },
  };
}

/**
 * A mandate of 1 USDC an hour from `payer`, starting an hour from now (nothing is charged while a
 * test runs) to a fresh merchant address; `over` replaces any field.
 */
export function mandateOf(
  chain: LocalChain,
  payer: Payer,
  over: Partial<MandateMessage> = {},
): MandateMessage {
  return {
    payer: payer.account.address,
    token: chain.usdc,
    amount: 1_000_000n,
    period: 3_600n,
    start: BigInt(Math.floor(Date.now() / 1000) + 3_600),
    merchant: randomAddress(),
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    salt: newSalt(),
    ...over,
  };
}

export const newSalt = (): Hex => `0x${randomUUID().replaceAll("-", "").padEnd(64, "0")}`;

/** Every webhook event of one subscription on webhook.events (committed records only). */
export async function subscriptionWebhooks(
  kafka: KafkaClient,
  partitions: number,
  subscriptionId: string,
): Promise<WebhookEvent[]> {
  const found: WebhookEvent[] = [];
  const from = new Map(Array.from({ length: partitions }, (_, p) => [p, 0n] as const));
  await readTopic(kafka, {
    topic: "webhook.events",
    from,
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        const w = codecs.webhookEvent.decode(r.value);
        if (w.idempotencyKey.startsWith(`sub:${subscriptionId}:`)) found.push(w);
      }
    },
  });
  return found;
}

/**
 * A subscription of the merchant behind `secretKey`, through the real gateway: a mandate of 1 USDC a
 * day signed by a fresh, unfunded payer, starting in a day (nothing is charged while a test runs).
 * Answers its id; throws unless the gateway answers 201.
 */
export async function registerUnchargedSubscription(gatewayUrl: string, secretKey: string): Promise<string> {
  const chain = (
    JSON.parse(readFileSync(".local/stack.json", "utf8")) as { chains: LocalChain[] }
  ).chains.find((c) => c.subscriptions);
  if (!chain?.subscriptions) throw new Error("no SubscriptionManager in .local/stack.json");
  const payer = privateKeyToAccount(generatePrivateKey());
  const mandate: MandateMessage = {
    payer: payer.address,
    token: chain.usdc,
    amount: 1_000_000n,
    period: 86_400n,
    start: BigInt(Math.floor(Date.now() / 1000) + 86_400),
    merchant: payer.address,
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    salt: generatePrivateKey(),
  };
  const signature = await payer.signTypedData(mandateTypedData(chain.chainId, chain.subscriptions, mandate));
  const res = await fetch(`${gatewayUrl}/v1/subscriptions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secretKey}`, "content-type": "application/json" },
    body: JSON.stringify(mandateBody(chain.chainId, mandate, signature)),
  });
  if (res.status !== 201)
    throw new Error(`POST /v1/subscriptions answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
