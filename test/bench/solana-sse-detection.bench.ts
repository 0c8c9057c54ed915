/**
 * Solana deposit (confirmed) to `detected` on the session's event stream: the whole path a payer's
 * client waits on (the Solana indexer, chain.transfers, the session actor, the projector, the
 * gateway's SSE), where solana-detection.bench.ts stops at the indexer's publish. Every role runs in
 * this process (test/support/service.ts) on the local stack, with your own Kafka and keyspace. For
 * each of N Solana-origin sessions in turn (one warm-up session first, not counted): the session is
 * created with its burner (POST /sessions/solana), the payer's client follows its stream
 * (waitForDetection), the burner's token account is made, and a second later (the burner is watched
 * by then, as when a person pays) a USDC deposit is sent with web3.js. The clock runs from
 * sendAndConfirmTransaction's return (the deposit is `confirmed`) to the `detected` event read off
 * the stream. Run under the shared lock (it sends on the stack's node):
 *
 *   source .env-test && flock /tmp/e2e.lock npx tsx test/bench/solana-sse-detection.bench.ts [deposits=40]
 */
import { setTimeout as sleep } from "node:timers/promises";
import { getOrCreateAssociatedTokenAccount, transfer } from "@solana/spl-token";
import { Connection, Keypair, PublicKey } from "@solana/web3.js";
import { localSolanaChain } from "../../src/chains/config.ts";
import { createApiClient, createSolanaSession, waitForDetection } from "../../src/client/index.ts";
import { startTestService } from "../support/service.ts";
import { keypairOf } from "../support/solana-node.ts";
import { printLatency } from "./latency-line.ts";

const deposits = Number(process.argv[2] ?? 40);
const svc = await startTestService({ roles: ["actors", "projector", "indexer", "gateway"] });
const node = svc.stack.solana;
if (!node) throw new Error("the local stack has no Solana node");
const connection = new Connection(node.rpcUrl, "confirmed");
const payer = keypairOf(node.testKey);
const mint = new PublicKey(node.usdcMint);
const client = createApiClient({ baseUrl: svc.url });
const destination = Keypair.generate().publicKey.toBase58();
const from = await getOrCreateAssociatedTokenAccount(connection, payer, mint, payer.publicKey);

// The first session after start is a warm-up (connections, the actors' first partitions): not counted.
const toDetected: number[] = [];
for (let i = -1; i < deposits; i++) {
  const key = Keypair.generate();
  const burner = key.publicKey;
  // Named at creation, with the burner's signature of the creation message as its key proof.
  const { id } = await createSolanaSession(client, {
    destination: { address: destination, chainId: localSolanaChain(node).chainId },
    burner: key,
  });
  const detection = waitForDetection(client, { id, timeout: 60_000 });
  const to = await getOrCreateAssociatedTokenAccount(connection, payer, mint, burner);
  await sleep(1000);
  await transfer(connection, payer, from.address, to.address, payer, 1_000_000n + BigInt(i));
  const confirmedAt = performance.now();
  const detected = await detection;
  if (i >= 0) toDetected.push(performance.now() - confirmedAt);
  if (detected.detected_amount !== String(1_000_000 + i))
    throw new Error(`session ${id} detected another amount`);
}
await svc.stop();

printLatency("deposit confirmed -> detected on the event stream", toDetected);
process.exit(0);
