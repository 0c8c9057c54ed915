/**
 * The cost of the local Solana node's RPC layer: for the same transactions (SOL transfers, then USDC
 * transferChecked as a deposit is), the node's latency as a client sees it (sendTransaction's HTTP
 * round trip, and sendTransaction to `confirmed` through web3.js's confirmTransaction over WebSocket)
 * beside litesvm's own time to decode and execute each of them in a mirror holding the same
 * accounts; then the node's start times. A private node in a temp root on its own ports; the stack's
 * node is not touched.
 *
 *   npx tsx test/bench/solana-node.bench.ts [transfers=300]
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Address, getTransactionDecoder, type Lamports } from "@solana/kit";
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  type TransactionInstruction,
} from "@solana/web3.js";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";
import { ensureSolana, stopSolana } from "../../deploy/local/solana/launcher.ts";
import { freePortPair, keypairOf } from "../support/solana-node.ts";

const transfers = Number(process.argv[2] ?? 300);
const to = Keypair.generate().publicKey;

const solTransfer = (from: Keypair, i: number) =>
  SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 + i });

function signed(from: Keypair, blockhash: string, ix: TransactionInstruction): Buffer {
  const tx = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(ix);
  tx.sign(from);
  return tx.serialize();
}

function stats(name: string, ms: number[]): void {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0).toFixed(3);
  const mean = (s.reduce((a, b) => a + b, 0) / s.length).toFixed(3);
  console.log(`${name.padEnd(56)} n=${s.length} p50=${at(0.5)} ms p99=${at(0.99)} ms mean=${mean} ms`);
}

/** A litesvm holding the node's accounts `keys` as they are now (the same runtime, no RPC in front). */
async function mirrorOf(connection: Connection, keys: readonly PublicKey[]): Promise<LiteSVM> {
  const svm = new LiteSVM().withSigverify(true).withBlockhashCheck(false);
  for (const key of keys) {
    const info = await connection.getAccountInfo(key, "confirmed");
    if (!info) continue;
    svm.setAccount({
      address: key.toBase58() as Address,
      data: new Uint8Array(info.data),
      executable: info.executable,
      lamports: BigInt(info.lamports) as Lamports,
      programAddress: info.owner.toBase58() as Address,
      space: BigInt(info.data.length),
    });
  }
  return svm;
}

// The node as a client sees it, and beside it litesvm alone running the very same transactions: each
// wire transaction is sent to the node (sendRawTransaction, then confirmTransaction at `confirmed`
// over the WebSocket), then the same bytes go to a mirror litesvm that holds the same accounts
// (decode + execute). What the node adds over the mirror is our RPC layer and the client's.
const root = await mkdtemp(path.join(tmpdir(), "solana-bench-"));
const port = await freePortPair();
let t = performance.now();
const info = await ensureSolana({ root, port });
const cold = performance.now() - t;
try {
  const connection = new Connection(info.rpcUrl, "confirmed");
  const payer = keypairOf(info.testKey);
  const mint = new PublicKey(info.usdcMint);
  const fromAta = getAssociatedTokenAddressSync(mint, payer.publicKey);
  const toAta = getAssociatedTokenAddressSync(mint, new PublicKey(info.relayerKey.publicKey));
  const usdcTransfer = (_from: Keypair, i: number) =>
    createTransferCheckedInstruction(fromAta, mint, toAta, payer.publicKey, 1_000n + BigInt(i), 6);
  const mirror = await mirrorOf(connection, [payer.publicKey, mint, fromAta, toAta]);
  const decode = getTransactionDecoder();
  for (const [kind, instruction] of [
    ["SOL transfer", solTransfer],
    ["USDC transferChecked", usdcTransfer],
  ] as const) {
    const runtime: number[] = [];
    const send: number[] = [];
    const confirmed: number[] = [];
    const added: number[] = [];
    let { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    for (let i = 0; i < transfers; i++) {
      if (i % 100 === 99) ({ blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash());
      const wire = signed(payer, blockhash, instruction(payer, i));
      const start = performance.now();
      const signature = await connection.sendRawTransaction(wire);
      send.push(performance.now() - start);
      await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, "confirmed");
      confirmed.push(performance.now() - start);
      const t0 = performance.now();
      const ran = mirror.sendTransaction(decode.decode(wire));
      runtime.push(performance.now() - t0);
      if (ran instanceof FailedTransactionMetadata)
        throw new Error(`the mirror failed ${kind} ${i}: ${ran.err()}`);
      added.push((confirmed.at(-1) as number) - (runtime.at(-1) as number));
    }
    console.log(`${kind}, the same ${transfers} transactions:`);
    stats("  litesvm sendTransaction (decode + execute)", runtime);
    stats("  node sendTransaction HTTP round trip", send);
    stats("  node sendTransaction to confirmed (web3.js)", confirmed);
    stats("  what the node adds (to confirmed - litesvm), per tx", added);
  }
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
