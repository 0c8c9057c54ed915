// A node that counts a relayer's nonce used a moment before it serves the receipt of the
// transaction that used it (anvil did under the rolling-restart proof's steady load,
// docs/RELIABILITY.md): the wallet must wait for its own receipt, not call its transaction
// superseded. It did, so the step signed again, and a sweep already mined failed its session. The
// lag is put between a private anvil node and the wallet; the ledger is the real Cassandra.
import { randomInt, randomUUID } from "node:crypto";
import { type Address, type Hex, type PublicClient, TransactionReceiptNotFoundError } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRelayerWallet } from "../../src/chains/evm/settle/relayer-wallet.ts";
import { executorLedger } from "../../src/store/executor-ledger.ts";
import { startTestChain, type TestChain } from "../support/anvil-chain.ts";
import { drivenService } from "../support/driven-service.ts";

const fx = drivenService();
// anvil's dev account #3: funded on a fresh node, not the payer (#0) nor another test's relayer (#2).
const RELAYER_KEY: Hex = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";
const relayer = privateKeyToAccount(RELAYER_KEY).address;
const SINK: Address = "0x000000000000000000000000000000000000dEaD";
/** How long after it exists the node hides a receipt. */
const LAG_MS = 1500;

let chain: TestChain;
beforeEach(async () => {
  chain = await startTestChain({ chainId: randomInt(40_000, 50_000) });
});
afterEach(async () => {
  await chain?.stop();
});

/** The chain's client, answering "no receipt" for LAG_MS after a receipt first exists. */
function laggingReceipts(client: PublicClient): PublicClient {
  const firstSeen = new Map<string, number>();
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop !== "getTransactionReceipt") return Reflect.get(target, prop, receiver);
      return async (args: { hash: Hex }) => {
        const receipt = await target.getTransactionReceipt(args);
        const seen = firstSeen.get(args.hash) ?? Date.now();
        firstSeen.set(args.hash, seen);
        if (Date.now() - seen < LAG_MS) throw new TransactionReceiptNotFoundError({ hash: args.hash });
        return receipt;
      };
    },
  });
}

describe("a node whose receipts lag its nonce count", () => {
  it("waits for the step's own receipt instead of calling its transaction superseded", {
    timeout: 60_000,
  }, async () => {
    const ledger = executorLedger(fx.service.cassandra);
    const wallet = createRelayerWallet({
      chainId: chain.chainId,
      client: laggingReceipts(chain.client),
      privateKey: RELAYER_KEY,
      ledger,
      stuckAfterMs: 30_000,
      feeBumpPercent: 20,
      pollMs: 50,
    });
    const key = `${randomUUID()}/sweep`;
    const submitted: string[] = [];
    const before = await chain.client.getTransactionCount({ address: relayer, blockTag: "latest" });
    const receipt = await wallet.send(
      { key, bump: false, onSubmitted: async (h) => void submitted.push(h) },
      async () => ({ to: SINK, data: "0x", gas: 21_000n }),
    );
    expect(receipt.status).toBe("success");
    // One transaction, the one reported, and the ledger says it mined.
    expect(submitted).toEqual([receipt.transactionHash]);
    expect(await chain.client.getTransactionCount({ address: relayer, blockTag: "latest" })).toBe(before + 1);
    const rows = await ledger.byStep(key);
    expect(rows.map((r) => [r.txHash, r.state])).toEqual([[receipt.transactionHash, "mined"]]);
  });
});
