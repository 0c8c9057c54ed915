/**
 * `DEMO_CHAIN=solana npm run demo`: a Solana deposit settled on the local Solana node, as a payer's
 * app does it with the client library (docs/CLIENT.md, "Solana"): make a burner keypair, open a
 * Solana-origin session with the payer's wallet as its refund address, register the burner with the
 * bounce setup it signs (the service may return its USDC there and nowhere else), pay 25 USDC (or
 * 0.05 SOL with DEMO_TOKEN=native) from the payer's wallet to the burner, and let the flow run:
 * detected over SSE, the sweep signed by the burner for exactly what arrived, committed, co-signed
 * and relayed by the service once the deposit is finalized, swept to the recipient's wallet.
 * With DEMO_DEST=evm the recipient is a fresh wallet on the local EVM destination chain: the sweep moves
 * the USDC into the service's vault on Solana and the relayer pays the recipient out of its USDC there,
 * the fast fill (docs/SOLANA.md, "EVM destinations"). Only USDC crosses: SOL to an EVM destination is
 * refused at commit (409 asset_not_bridgeable).
 */
import { getBase58Encoder } from "@solana/kit";
import {
  createAssociatedTokenAccountIdempotent,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { createApiClient, makeSolanaBurner, paySolanaDetectThenSign } from "deposit-settlement/client";
import { createPublicClient, http } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { SOLANA_LOCAL_CHAIN_ID } from "../../src/chains/solana/config.ts";
import { readStack } from "./stack.ts";

const stack = await readStack(); // .local/stack.json, written by `npm start`
const local = stack?.solana;
if (!local) throw new Error("no local Solana node: run `npm start` first");
const connection = new Connection(local.rpcUrl, "confirmed");
const usdc = new PublicKey(local.usdcMint);
const native = process.env.DEMO_TOKEN === "native";
const destKind = process.env.DEMO_DEST ?? "solana";
if (destKind !== "solana" && destKind !== "evm")
  throw new Error(`DEMO_DEST=${destKind}: "solana" (the default) or "evm"`);
if (destKind === "evm" && native)
  throw new Error("DEMO_DEST=evm pays USDC: SOL to an EVM destination is refused (asset_not_bridgeable)");
const evmDest = destKind === "evm" ? stack?.chains.find((c) => c.name === "destination") : undefined;
if (destKind === "evm" && !evmDest) throw new Error("no local EVM destination chain: run `npm start` first");

// The payer's wallet: the stack's funded test key.
const payer = Keypair.fromSecretKey(new Uint8Array(getBase58Encoder().encode(local.testKey.secretKey)));

/** The recipient: a fresh wallet on the destination chain, and what it holds there (read once swept). */
async function freshRecipient(): Promise<{ address: string; chainId: number; holds: () => Promise<string> }> {
  if (evmDest) {
    const address = privateKeyToAddress(generatePrivateKey());
    const evm = createPublicClient({ transport: http(evmDest.rpcUrl) });
    const holds = async () =>
      `${await evm.readContract({ address: evmDest.usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [address] })} USDC base units`;
    return { address, chainId: evmDest.chainId, holds };
  }
  // On Solana, with a USDC account: the sweep pays token accounts that exist, as a wallet holding USDC has.
  const owner = Keypair.generate().publicKey;
  const account = await getOrCreateAssociatedTokenAccount(connection, payer, usdc, owner);
  const holds = async () =>
    native
      ? `${await connection.getBalance(owner)} lamports`
      : `${(await connection.getTokenAccountBalance(account.address)).value.amount} USDC base units`;
  return { address: owner.toBase58(), chainId: SOLANA_LOCAL_CHAIN_ID, holds };
}
const recipient = await freshRecipient();

// Pay: send USDC (or SOL) from the payer's wallet to the burner, once the session is open.
const pay = async (burner: PublicKey) => {
  let signature: string;
  if (native) {
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: burner, lamports: 50_000_000 }),
    );
    signature = await sendAndConfirmTransaction(connection, tx, [payer]);
  } else {
    const from = await getOrCreateAssociatedTokenAccount(connection, payer, usdc, payer.publicKey);
    // The burner's bounce setup makes this account too (relayed by the service): either comes first.
    const to = await createAssociatedTokenAccountIdempotent(connection, payer, usdc, burner);
    signature = await transfer(connection, payer, from.address, to, payer, 25_000_000n);
  }
  console.log(`sent to burner ${burner.toBase58()} on Solana: ${signature}`);
};

const client = createApiClient({ baseUrl: process.env.GATEWAY_URL ?? "http://127.0.0.1:8080" });
const burner = makeSolanaBurner(); // keep its key until the session ends: only it can return SOL
const { created, signed, committed, settled } = await paySolanaDetectThenSign(client, {
  burner,
  destination: { address: recipient.address, chainId: recipient.chainId },
  // Where the service bounces the burner's USDC if the session expires or fails: signed by the burner.
  refundTo: payer.publicKey.toBase58(),
  onCreated: () => pay(burner.keypair.publicKey),
  onSession: (s) => console.log(`SSE status=${s.status} amount=${s.detected_amount} tx=${s.detected_tx}`),
});
console.log("created", created);
console.log(`signed sweep ${signed.legs.map((l) => `${l.amount} to ${l.to}`).join(", ")}`);
console.log(`committed fee_bps=${committed.fee_bps}`);
console.log(`settled outcome=${settled.outcome} sweep ${settled.sweep_tx}`);
// To an EVM destination the sweep went to the vault; the relayer's fill is the delivery there.
if (evmDest) console.log(`filled on chain ${evmDest.chainId}: ${settled.dest_tx}`);
console.log(`recipient ${recipient.address} holds ${await recipient.holds()} on chain ${recipient.chainId}`);
console.log("session", settled);
