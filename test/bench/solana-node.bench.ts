/**
 * The cost of the local Solana node's RPC layer: litesvm's own execution time for a SOL transfer beside
 * the node's latency as a client sees it (sendTransaction's HTTP round trip, and sendTransaction to
 * `confirmed` through web3.js's confirmTransaction over WebSocket), and the node's start times.
 * A private node in a temp root on its own ports; the stack's node is not touched.
 *
 *   npx tsx test/bench/solana-node.bench.ts [transfers=300]
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Address, getTransactionDecoder, type Lamports } from "@solana/kit";
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from "@solana/web3.js";
import { LiteSVM } from "litesvm";
import { ensureSolana, stopSolana } from "../../deploy/local/solana/launcher.ts";
import { freePortPair, keypairOf } from "../support/solana-node.ts";

const transfers = Number(process.argv[2] ?? 300);
const to = Keypair.generate().publicKey;

function transferTx(from: Keypair, blockhash: string, i: number): Buffer {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 + i }),
  );
  tx.sign(from);
  return tx.serialize();
}

function stats(name: string, ms: number[]): void {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0).toFixed(3);
  const mean = (s.reduce((a, b) => a + b, 0) / s.length).toFixed(3);
  console.log(`${name.padEnd(44)} n=${s.length} p50=${at(0.5)} ms p99=${at(0.99)} ms mean=${mean} ms`);
}

// 1. litesvm alone: decode the wire bytes and execute, as the node does for each transaction.
{
  const svm = new LiteSVM().withSigverify(true).withBlockhashCheck(false);
  const payer = Keypair.generate();
  svm.airdrop(payer.publicKey.toBase58() as Address, BigInt(100 * LAMPORTS_PER_SOL) as Lamports);
  const decode = getTransactionDecoder();
  const blockhash = svm.latestBlockhash();
  const wires = Array.from({ length: transfers }, (_, i) => transferTx(payer, blockhash, i));
  const times: number[] = [];
  for (const wire of wires) {
    const t = performance.now();
    svm.sendTransaction(decode.decode(wire));
    times.push(performance.now() - t);
  }
  stats("litesvm sendTransaction (decode + execute)", times);
}

// 2. The node, as a client sees it.
const root = await mkdtemp(path.join(tmpdir(), "solana-bench-"));
const port = await freePortPair();
let t = performance.now();
const info = await ensureSolana({ root, port });
const cold = performance.now() - t;
try {
  const connection = new Connection(info.rpcUrl, "confirmed");
  const payer = keypairOf(info.testKey);
  const send: number[] = [];
  const confirmed: number[] = [];
  let { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  for (let i = 0; i < transfers; i++) {
    if (i % 100 === 99) ({ blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash());
    const wire = transferTx(payer, blockhash, i);
    const start = performance.now();
    const signature = await connection.sendRawTransaction(wire);
    send.push(performance.now() - start);
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
    confirmed.push(performance.now() - start);
  }
  stats("node sendTransaction HTTP round trip", send);
  stats("node sendTransaction to confirmed (web3.js)", confirmed);
  t = performance.now();
  await ensureSolana({ root, port });
  const reuse = performance.now() - t;
  t = performance.now();
  await stopSolana(root);
  const stop = performance.now() - t;
  t = performance.now();
  await ensureSolana({ root, port });
  const restart = performance.now() - t;
  console.log(
    `node start: cold ${cold.toFixed(0)} ms, reuse ${reuse.toFixed(0)} ms, stop ${stop.toFixed(0)} ms, ` +
      `restart with ${transfers} transactions kept ${restart.toFixed(0)} ms`,
  );
} finally {
  await stopSolana(root);
}
process.exit(0);
