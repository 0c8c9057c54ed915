/**
 * `DEMO_CHAIN=solana npm run demo`: a Solana deposit settled on the local Solana node, as a payer's
 * app does it with the client library (docs/CLIENT.md, "Solana"): make a burner keypair, open a
 * Solana-origin session with the payer's wallet as its refund address, register the burner with the
 * bounce setup it signs (the service may return its USDC there and nowhere else), pay 25 USDC (or
 * 0.05 SOL with DEMO_TOKEN=native) from the payer's wallet to the burner, and let the flow run:
 * detected over SSE, the sweep signed by the burner for exactly what arrived, committed, co-signed
 * and relayed by the service once the deposit is finalized, swept to the recipient's wallet.
 */
import { getBase58Encoder } from "@solana/kit";
import {
  createAssociatedTokenAccountIdempotent,
  getAssociatedTokenAddressSync,
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
import { SOLANA_LOCAL_CHAIN_ID } from "../../src/chains/solana/config.ts";
import { readStack } from "./stack.ts";

const local = (await readStack())?.solana; // .local/stack.json, written by `npm start`
if (!local) throw new Error("no local Solana node: run `npm start` first");
const connection = new Connection(local.rpcUrl, "confirmed");
const usdc = new PublicKey(local.usdcMint);
const native = process.env.DEMO_TOKEN === "native";

// The payer's wallet: the stack's funded test key. The recipient: a fresh wallet with a USDC account
// (the sweep pays token accounts that exist, as a wallet that holds USDC has).
const payer = Keypair.fromSecretKey(new Uint8Array(getBase58Encoder().encode(local.testKey.secretKey)));
const recipient = Keypair.generate().publicKey;
await getOrCreateAssociatedTokenAccount(connection, payer, usdc, recipient);

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
  destination: { address: recipient.toBase58(), chainId: SOLANA_LOCAL_CHAIN_ID },
  // Where the service bounces the burner's USDC if the session expires or fails: signed by the burner.
  refundTo: payer.publicKey.toBase58(),
  onCreated: () => pay(burner.keypair.publicKey),
  onSession: (s) => console.log(`SSE status=${s.status} amount=${s.detected_amount} tx=${s.detected_tx}`),
});
console.log("created", created);
console.log(`signed sweep ${signed.legs.map((l) => `${l.amount} to ${l.to}`).join(", ")}`);
console.log(`committed fee_bps=${committed.fee_bps}`);
console.log(`settled outcome=${settled.outcome} sweep ${settled.sweep_tx}`);
const received = native
  ? `${await connection.getBalance(recipient)} lamports`
  : `${(await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(usdc, recipient))).value.amount} USDC base units`;
console.log(`recipient ${recipient.toBase58()} holds ${received}`);
console.log("session", settled);
