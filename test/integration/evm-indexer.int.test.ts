import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_MIN_USDC } from "../../src/chains/evm/config.ts";
import {
  type BlockInput,
  type ChainInput,
  createBlockSource,
  type ReorgInput,
} from "../../src/chains/evm/ingest/block-source.ts";
import { createEvmIndexer } from "../../src/chains/evm/ingest/indexer.ts";
import type { EvmChainConfig } from "../../src/config.ts";
import { type Address, NATIVE_TOKEN } from "../../src/domain/types.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { encodeRecords, readFreshness } from "../../src/store/indexer-checkpoints.ts";
import { PAYER, startTestChain, type TestChain } from "../support/anvil-chain.ts";

// A private anvil (these tests rewrite its history) and the shared Cassandra, in a throw-away keyspace.
const settings = {
  contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? "127.0.0.1:19042").split(","),
  localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? "datacenter1",
  keyspace: `idx_test_${randomBytes(4).toString("hex")}`,
};

let chain: TestChain;
let cassandra: CassandraClient;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31_990 });
  cassandra = await connectCassandra(settings, { migrate: true });
});

afterAll(async () => {
  await cassandra?.execute(`DROP KEYSPACE IF EXISTS ${settings.keyspace}`);
  await cassandra?.shutdown();
  await chain?.stop();
});

beforeEach(async () => {
  // every test starts the indexer afresh: no checkpoint, no published rows, no burners
  for (const table of ["indexer_checkpoints", "indexer_published", "watched_burners"]) {
    await cassandra.execute(`DELETE FROM ${table} WHERE chain_id = ?`, [chain.chainId], { prepare: true });
  }
});

const randomAddress = (): Address => `0x${randomBytes(20).toString("hex")}`;

function startIndexer(
  confirmations: number,
  opts: { crashOnFirstPublish?: boolean; acceptedTokens?: EvmChainConfig["acceptedTokens"] } = {},
) {
  const controller = new AbortController();
  const published: TransferObserved[] = [];
  const logs: string[] = [];
  let crash = opts.crashOnFirstPublish ?? false;
  const config: EvmChainConfig = {
    name: "test",
    chainId: chain.chainId,
    rpcUrl: chain.url,
    delegate: NATIVE_TOKEN,
    confirmations,
    minRelayerBalanceWei: "0",
    usdc: chain.usdc,
    ...(opts.acceptedTokens ? { acceptedTokens: opts.acceptedTokens } : {}),
  };
  const indexer = createEvmIndexer({
    chain: config,
    client: chain.client,
    cassandra,
    publish: async (records) => {
      published.push(...records);
      if (crash) {
        crash = false; // the records reached Kafka, then the process "died" before its checkpoint
        throw new Error("simulated crash after publish");
      }
    },
    log: (msg, fields) => logs.push(`${msg} ${JSON.stringify(fields)}`),
    signal: controller.signal,
    pollMs: 25,
  });
  const running = indexer.run();
  running.catch(() => {}); // surfaced by stop()
  return {
    indexer,
    published,
    logs,
    /** Resolves once the checkpoint has reached the confirmed head as it is now. */
    caughtUp: async () => {
      const target = (await chain.client.getBlockNumber({ cacheTime: 0 })) - BigInt(confirmations);
      await waitFor(() => (indexer.status().lastBlock ?? -1n) >= target, `checkpoint ${target}`);
    },
    stop: async () => {
      controller.abort();
      await running;
    },
  };
}

async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("EVM indexer against anvil and Cassandra", () => {
  it("publishes an ERC-20 transfer to a watched burner once, with its on-chain fields", async () => {
    const ix = startIndexer(2);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      const sessionId = randomUUID();
      expect((await ix.indexer.watchlist.add(burner, sessionId)).outcome).toBe("added");

      const txHash = await chain.sendUsdc(burner, 1_500_000n);
      const receipt = await chain.client.getTransactionReceipt({ hash: txHash });
      await chain.mine(2);
      await waitFor(() => ix.published.length === 1, "one record");

      const record = ix.published[0];
      expect(record).toMatchObject({
        sessionId,
        burner,
        chainId: chain.chainId,
        token: chain.usdc,
        amount: 1_500_000n,
        txHash,
        logIndex: receipt.logs[0]?.logIndex,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        from: PAYER,
        retracted: false,
        // No acceptedTokens configured: the chain's USDC and coin are accepted, above the default minimums.
        terms: { accepted: true, minAmount: DEFAULT_MIN_USDC },
      });
      expect(record?.confirmations).toBeGreaterThanOrEqual(2);

      await chain.mine(3);
      await ix.caughtUp();
      expect(ix.published).toHaveLength(1);
    } finally {
      await ix.stop();
    }
  });

  it("publishes every transfer to a burner, accepted or not, each with its chain's terms for the token", async () => {
    const ix = startIndexer(1, { acceptedTokens: [{ token: "native", minAmount: "10000" }] });
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      await ix.indexer.watchlist.add(burner, randomUUID());
      const usdcTx = await chain.sendUsdc(burner, 1_500_000n);
      const ethTx = await chain.sendEth(burner, 12_345n);
      const dustTx = await chain.sendEth(burner, 5n);
      await chain.mine(1);
      await waitFor(() => ix.published.length === 3, "three records");
      // Nothing is dropped: the session's decider tells a payment from an unsupported deposit by the terms.
      expect(ix.published.map((r) => [r.txHash, r.amount, r.terms])).toEqual([
        [usdcTx, 1_500_000n, { accepted: false, minAmount: 0n }],
        [ethTx, 12_345n, { accepted: true, minAmount: 10_000n }],
        [dustTx, 5n, { accepted: true, minAmount: 10_000n }],
      ]);
    } finally {
      await ix.stop();
    }
  });

  it("publishes a native transfer, and neither unwatched recipients nor reverted transactions", async () => {
    const ix = startIndexer(1);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      const reverting = randomAddress();
      const unwatched = randomAddress();
      const sessionId = randomUUID();
      await ix.indexer.watchlist.add(burner, sessionId);
      await ix.indexer.watchlist.add(reverting, randomUUID());
      // PUSH1 0 PUSH1 0 REVERT: any call to it fails, so the value never arrives
      await chain.rpc("anvil_setCode", [reverting, "0x60006000fd"]);

      const txHash = await chain.sendEth(burner, 12345n);
      await chain.sendUsdc(unwatched, 7n);
      await chain.sendEth(unwatched, 7n);
      const failed = await chain.sendEth(reverting, 99n, { gas: 100_000n });
      expect((await chain.client.getTransactionReceipt({ hash: failed })).status).toBe("reverted");
      await chain.mine(1);
      await ix.caughtUp();

      expect(ix.published).toHaveLength(1);
      const receipt = await chain.client.getTransactionReceipt({ hash: txHash });
      expect(ix.published[0]).toMatchObject({
        sessionId,
        burner,
        token: NATIVE_TOKEN,
        amount: 12345n,
        logIndex: -1,
        txHash,
        blockHash: receipt.blockHash,
        from: PAYER,
        retracted: false,
      });
    } finally {
      await ix.stop();
    }
  });

  it("resumes from its checkpoint without publishing a transfer again", async () => {
    const first = startIndexer(0);
    const burner = randomAddress();
    try {
      await first.caughtUp();
      await first.indexer.watchlist.add(burner, randomUUID());
      await chain.sendUsdc(burner, 5n);
      await waitFor(() => first.published.length === 1, "first record");
    } finally {
      await first.stop();
    }
    const second = startIndexer(0);
    try {
      await chain.mine(3);
      await second.caughtUp();
      expect(second.published).toHaveLength(0);
      expect(second.indexer.watchlist.get(burner)).toBeDefined();
    } finally {
      await second.stop();
    }
  });

  it("after a crash between publish and checkpoint, republishes the byte-identical record", async () => {
    const ix = startIndexer(0, { crashOnFirstPublish: true });
    try {
      await ix.caughtUp();
      await ix.indexer.watchlist.add(randomAddress(), randomUUID());
      const burner = randomAddress();
      await ix.indexer.watchlist.add(burner, randomUUID());
      await chain.sendUsdc(burner, 42n);
      await waitFor(() => ix.published.length === 2, "the record twice");
      const [once, again] = ix.published;
      expect(again).toStrictEqual(once);
      expect(encodeRecords([again as TransferObserved])).toBe(encodeRecords([once as TransferObserved]));
      await chain.mine(2);
      await ix.caughtUp();
      expect(ix.published).toHaveLength(2);
    } finally {
      await ix.stop();
    }
  });

  it("backfills a burner added after its deposits, and keeps the first session of a duplicate burner", async () => {
    const ix = startIndexer(1);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      const usdcTx = await chain.sendUsdc(burner, 3_000_000n);
      const ethTx = await chain.sendEth(burner, 10n ** 15n);
      await chain.mine(1);
      await ix.caughtUp();
      expect(ix.published).toHaveLength(0);

      const sessionId = randomUUID();
      expect((await ix.indexer.watchlist.add(burner, sessionId)).outcome).toBe("added");
      expect(ix.published.map((r) => [r.txHash, r.token, r.amount, r.sessionId])).toEqual([
        [usdcTx, chain.usdc, 3_000_000n, sessionId],
        [ethTx, NATIVE_TOKEN, 10n ** 15n, sessionId],
      ]);

      // a retried add of the same session finds the same transfers and publishes nothing new
      expect((await ix.indexer.watchlist.add(burner, sessionId)).outcome).toBe("already_watched");
      const other = await ix.indexer.watchlist.add(burner, randomUUID());
      expect(other).toMatchObject({ outcome: "conflict", entry: { sessionId } });
      expect(ix.published).toHaveLength(2);

      await chain.sendEth(burner, 1n);
      await chain.mine(1);
      await waitFor(() => ix.published.length === 3, "the later deposit");
      expect(ix.published[2]?.sessionId).toBe(sessionId);
    } finally {
      await ix.stop();
    }
  });

  it("offered burners of every family (as the burner feed does), watches its own, canonicalised", async () => {
    const ix = startIndexer(0);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      const solanaBurner = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
      const sessionId = randomUUID();
      const results = await ix.indexer.watch([
        { burner: solanaBurner, sessionId: randomUUID() },
        { burner: burner.toUpperCase().replace("0X", "0x"), sessionId },
      ]);
      expect(results).toEqual([{ outcome: "added", burner, owner: sessionId }]);
      expect(ix.indexer.watchlist.size()).toBe(1);
      await expect(ix.indexer.watchlist.add(solanaBurner, randomUUID())).rejects.toThrow(
        /is not an address of chain/,
      );
    } finally {
      await ix.stop();
    }
  });

  it("never publishes a transfer whose block is reorged out before it is confirmed", async () => {
    const ix = startIndexer(2);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      await ix.indexer.watchlist.add(burner, randomUUID());
      const txHash = await chain.sendUsdc(burner, 9n);
      const { blockNumber } = await chain.client.getTransactionReceipt({ hash: txHash });
      await chain.reorg(1);
      await expect(chain.client.getTransactionReceipt({ hash: txHash })).rejects.toThrow();
      await chain.mine(3);
      await ix.caughtUp();
      expect(ix.indexer.status().lastBlock).toBeGreaterThan(blockNumber);
      expect(ix.published).toHaveLength(0);
    } finally {
      await ix.stop();
    }
  });

  it("retracts a published transfer whose block a reorg drops", async () => {
    const ix = startIndexer(0);
    try {
      await ix.caughtUp();
      const burner = randomAddress();
      await ix.indexer.watchlist.add(burner, randomUUID());
      await chain.sendUsdc(burner, 11n);
      await waitFor(() => ix.published.length === 1, "the record");
      await chain.reorg(1);
      await waitFor(() => ix.published.length === 2, "the retraction");
      const [observed, retraction] = ix.published;
      expect(retraction).toStrictEqual({ ...observed, retracted: true, observedAt: retraction?.observedAt });
      await chain.mine(2);
      await ix.caughtUp();
      expect(ix.published).toHaveLength(2);
    } finally {
      await ix.stop();
    }
  });

  it("retracts after a restart when the reorg happened while it was stopped", async () => {
    const first = startIndexer(0);
    const burner = randomAddress();
    try {
      await first.caughtUp();
      await chain.mine(2); // history below the deposit, so the common ancestor is a block it remembers
      await first.caughtUp();
      await first.indexer.watchlist.add(burner, randomUUID());
      await chain.sendUsdc(burner, 13n);
      await waitFor(() => first.published.length === 1, "the record");
    } finally {
      await first.stop();
    }
    await chain.reorg(2);
    const second = startIndexer(0);
    try {
      await waitFor(() => second.published.length === 1, "the retraction");
      expect(second.published[0]).toMatchObject({
        ...first.published[0],
        retracted: true,
        observedAt: expect.any(Number),
      });
    } finally {
      await second.stop();
    }
  });

  it("reports freshness from the checkpoint", async () => {
    const ix = startIndexer(0);
    try {
      await ix.caughtUp();
      const status = ix.indexer.status();
      const row = (await readFreshness(cassandra)).find((f) => f.chainId === chain.chainId);
      expect(row?.lastBlock).toBe(status.lastBlock);
      expect(row?.updatedAt).toBeGreaterThan(Date.now() - 60_000);
      expect(row?.blockTimestamp).toBeGreaterThan(0);
    } finally {
      await ix.stop();
    }
  });
});

describe("block source against anvil", () => {
  it("reports a reorg with its common ancestor before the blocks of the new branch", async () => {
    const controller = new AbortController();
    await chain.mine(5);
    const source = createBlockSource({
      client: chain.client,
      confirmations: 0,
      pollMs: 10,
      signal: controller.signal,
      resume: [],
    });
    const blocksOf = (step: ChainInput[]): BlockInput[] =>
      step.flatMap((i) => (i.kind === "block" ? [i] : []));
    const start = blocksOf(await source.next()); // the confirmed head
    expect(start).toHaveLength(1);
    await chain.mine(4);
    const before = await source.next();
    expect(before).toHaveLength(4);
    const handedOut = [...start, ...blocksOf(before)];
    // invariant: every block is linked to its parent
    for (const [i, b] of handedOut.entries()) if (i > 0) expect(b.parentHash).toBe(handedOut[i - 1]?.hash);

    await chain.reorg(3);
    await chain.mine(1);
    const ancestor = handedOut[handedOut.length - 4] as BlockInput;
    const expected: ReorgInput = {
      kind: "reorg",
      commonAncestor: { number: ancestor.number, hash: ancestor.hash },
      dropped: handedOut.slice(-3).map((b) => ({ number: b.number, hash: b.hash })),
    };
    expect(await source.next()).toStrictEqual([expected]);
    const after = await source.next();
    expect(after).toHaveLength(4);
    expect(after[0]).toMatchObject({
      kind: "block",
      number: ancestor.number + 1n,
      parentHash: ancestor.hash,
    });
    controller.abort();
  });
});
