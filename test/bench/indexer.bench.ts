// Indexer throughput: scans N blocks holding M transfers to watched burners on a private anvil.
// Prints figures only. Usage: npx tsx test/bench/indexer.bench.ts [blocks=2000] [transfers=2000] [burners=200]
// Two figures: the scan alone (block source + transfer finding, no storage), and the whole indexer
// (Cassandra rows and checkpoints) when Cassandra answers at CASSANDRA_CONTACT_POINTS.
import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { createPublicClient, http, type PublicClient } from "viem";
import { createBlockSource } from "../../src/chains/evm/ingest/block-source.ts";
import { createEvmIndexer } from "../../src/chains/evm/ingest/indexer.ts";
import { findTransfers } from "../../src/chains/evm/ingest/transfers.ts";
import { type Address, NATIVE_TOKEN } from "../../src/domain/types.ts";
import { connectCassandra } from "../../src/store/cassandra.ts";
import { createCheckpointStore } from "../../src/store/indexer-checkpoints.ts";
import { startTestChain, type TestChain } from "../support/anvil-chain.ts";

const [blocks = 2000, transfers = 2000, burnerCount = 200] = process.argv.slice(2).map(Number);
const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(0);

const chain = await startTestChain({ chainId: 31_991 });
try {
  const burners = Array.from(
    { length: burnerCount },
    () => `0x${randomBytes(20).toString("hex")}` as Address,
  );
  const start = (await chain.client.getBlockNumber()) + 1n;
  const filled = await fill(chain, burners);
  const end = start + BigInt(blocks) - 1n;
  console.log(
    `chain: ${blocks} blocks (${start}..${end}), ${transfers} transfers to ${burnerCount} burners (filled in ${filled} ms)`,
  );

  const watched = new Set<Address>(burners);
  for (const [label, client] of [
    ["scan, plain http", chain.client],
    [
      "scan, JSON-RPC batching",
      createPublicClient({ transport: http(chain.url, { batch: { batchSize: 100 } }) }),
    ],
  ] as const) {
    const t0 = performance.now();
    const found = await scan(client as PublicClient, start, end, watched);
    const ms = performance.now() - t0;
    console.log(
      `${label}: ${found} transfers in ${ms.toFixed(0)} ms = ${rate(blocks, ms)} blocks/s, ${rate(found, ms)} transfers/s`,
    );
  }
  await fullIndexer(chain, burners, start, end);
} finally {
  await chain.stop();
}

/** Spreads the transfers evenly over the blocks, half ERC-20 and half native, with automine off. */
async function fill(c: TestChain, burners: Address[]): Promise<number> {
  const t0 = performance.now();
  await c.setAutomine(false);
  let sent = 0;
  for (let b = 0; b < blocks; b++) {
    const due = Math.floor(((b + 1) * transfers) / blocks);
    const pending: Promise<unknown>[] = [];
    for (; sent < due; sent++) {
      const to = burners[sent % burners.length] as Address;
      pending.push(
        sent % 2 === 0 ? c.sendUsdc(to, 1n + BigInt(sent), false) : c.sendEth(to, 1n, { wait: false }),
      );
    }
    await Promise.all(pending);
    await c.mine(1);
  }
  await c.setAutomine(true);
  return Math.round(performance.now() - t0);
}

async function scan(client: PublicClient, from: bigint, to: bigint, watched: Set<Address>): Promise<number> {
  const controller = new AbortController();
  const source = createBlockSource({
    client,
    confirmations: 0,
    pollMs: 10,
    signal: controller.signal,
    resume: [{ number: from - 1n, hash: (await client.getBlock({ blockNumber: from - 1n })).hash }],
  });
  let found = 0;
  for (let done = from - 1n; done < to; ) {
    const step = await source.next();
    const run = step.flatMap((i) => (i.kind === "block" && i.number <= to ? [i] : []));
    const t = await findTransfers({
      client,
      chainId: chain.chainId,
      blocks: run,
      isWatched: (a) => watched.has(a),
    });
    found += t.length;
    done = run.at(-1)?.number ?? done;
  }
  controller.abort();
  return found;
}

async function fullIndexer(c: TestChain, burners: Address[], from: bigint, to: bigint): Promise<void> {
  const keyspace = `idx_bench_${randomBytes(4).toString("hex")}`;
  let cassandra: Awaited<ReturnType<typeof connectCassandra>>;
  try {
    cassandra = await connectCassandra(
      {
        contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? "127.0.0.1:19042").split(","),
        localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? "datacenter1",
        keyspace,
      },
      { migrate: true },
    );
  } catch (err) {
    console.log(`full indexer: skipped, Cassandra unavailable (${(err as Error).message})`);
    return;
  }
  try {
    // Start just below the filled range, as if the indexer had stopped there.
    const below = await c.client.getBlock({ blockNumber: from - 1n });
    const ref = { number: below.number, hash: below.hash };
    await createCheckpointStore(cassandra, c.chainId).save({
      ...ref,
      timestamp: below.timestamp,
      recent: [ref],
    });
    const controller = new AbortController();
    let records = 0;
    const indexer = createEvmIndexer({
      chain: {
        name: "bench",
        chainId: c.chainId,
        rpcUrl: c.url,
        delegate: NATIVE_TOKEN,
        confirmations: 0,
        minRelayerBalanceWei: "0",
      },
      client: createPublicClient({ transport: http(c.url, { batch: { batchSize: 100 } }) }) as PublicClient,
      cassandra,
      publish: async (r) => {
        records += r.length;
      },
      log: () => {},
      signal: controller.signal,
      pollMs: 10,
      backfillBlocks: 0,
    });
    await indexer.watchlist.load();
    for (const b of burners) await indexer.watchlist.add(b, randomUUID());
    const t0 = performance.now();
    const running = indexer.run();
    while ((indexer.status().lastBlock ?? 0n) < to) await sleep(5);
    const ms = performance.now() - t0;
    controller.abort();
    await running;
    console.log(
      `full indexer (batching, Cassandra): ${records} records in ${ms.toFixed(0)} ms = ${rate(blocks, ms)} blocks/s, ${rate(records, ms)} transfers/s`,
    );
  } finally {
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await cassandra.shutdown();
  }
}
