/**
 * Solana deposit (confirmed) to TransferObserved published: the Solana indexer (its production poll)
 * on the stack's local Solana node, Cassandra in a throw-away keyspace. For each of N USDC deposits to a
 * watched burner, sent one after another: from the moment web3.js's sendAndConfirmTransaction returns
 * (the deposit is `confirmed`) to the moment the indexer hands its record to publish (at "confirmed"),
 * and to the "finalized" copy. Run under the shared lock (it sends on the stack's node):
 *
 *   source .env-test && flock /tmp/e2e.lock npx tsx test/bench/solana-detection.bench.ts [deposits=40]
 */
import { randomBytes, randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { getOrCreateAssociatedTokenAccount, transfer } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import type { LocalSolana } from "../../deploy/local/solana/launcher.ts";
import { createChainAdapters } from "../../src/chains/adapters.ts";
import { localSolanaChain } from "../../src/chains/config.ts";
import type { TransferObserved } from "../../src/records/chain-transfers.ts";
import { connectCassandra } from "../../src/store/cassandra.ts";
import { keypairOf } from "../support/solana-node.ts";
import { printLatency } from "./latency-line.ts";

const deposits = Number(process.argv[2] ?? 40);
const node = (JSON.parse(await readFile(".local/stack.json", "utf8")) as { solana: LocalSolana }).solana;
const connection = new Connection(node.rpcUrl, "confirmed");
const payer = keypairOf(node.testKey);
const mint = new PublicKey(node.usdcMint);
const settings = {
  contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? "127.0.0.1:19042").split(","),
  localDataCenter: "datacenter1",
  keyspace: `sol_bench_${randomBytes(4).toString("hex")}`,
};
const cassandra = await connectCassandra(settings, { migrate: true });
const [adapter] = createChainAdapters([localSolanaChain(node)]);
if (!adapter) throw new Error("no Solana chain");
const seen = new Map<string, { confirmed?: number; finalized?: number }>();
const controller = new AbortController();
const indexer = adapter.createIndexer({
  cassandra,
  publish: async (records: TransferObserved[]) => {
    const now = performance.now();
    for (const r of records) {
      const entry = seen.get(r.txHash) ?? {};
      if (r.finality === "finalized") entry.finalized ??= now;
      else entry.confirmed ??= now;
      seen.set(r.txHash, entry);
    }
  },
  log: () => {},
  signal: controller.signal,
  pollMs: 1000, // INDEXER_POLL_MS's default: the Solana indexer polls every slot all the same
});
const running = indexer.run();
while (indexer.status().lastBlock === null) await sleep(50);
const burner = Keypair.generate().publicKey;
await indexer.watch([{ burner: burner.toBase58(), sessionId: randomUUID() }]);
const from = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
const to = await getOrCreateAssociatedTokenAccount(connection, payer, mint, burner);

const toConfirmed: number[] = [];
const toFinalized: number[] = [];
for (let i = 0; i < deposits; i++) {
  const signature = await transfer(connection, payer, from.address, to.address, payer, 10_000n + BigInt(i));
  const confirmedAt = performance.now();
  while (seen.get(signature)?.finalized === undefined) await sleep(5);
  const entry = seen.get(signature) ?? {};
  toConfirmed.push((entry.confirmed ?? Number.NaN) - confirmedAt);
  toFinalized.push((entry.finalized ?? Number.NaN) - confirmedAt);
}
controller.abort();
await running;
await cassandra.execute(`DROP KEYSPACE IF EXISTS ${settings.keyspace}`);
await cassandra.shutdown();

printLatency("deposit confirmed -> TransferObserved (confirmed)", toConfirmed);
printLatency("deposit confirmed -> TransferObserved (finalized)", toFinalized);
process.exit(0);
