// A private local Solana node for a test: its own root and free ports (the HTTP port and port+1 for
// WebSocket), stopped by the caller. The stack's node is left alone.
import { createPrivateKey, sign } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import {
  ensureSolana,
  type LocalSolana,
  SolanaExitedError,
  stopSolana,
} from "../../deploy/local/solana/launcher.ts";
import type { TestService } from "./service.ts";

const listensOn = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

/**
 * A free port whose successor is free too (the node's WebSocket port), below Linux's ephemeral range
 * (32768-60999), where any outgoing connection of the suite could take it before the node listens.
 */
export async function freePortPair(): Promise<number> {
  for (let i = 0; i < 20; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await listensOn(port)) && (await listensOn(port + 1))) return port;
  }
  throw new Error("no free port pair");
}

export async function startPrivateSolana(opts: { slotMs: number; finalityLag: number }) {
  const root = await mkdtemp(path.join(tmpdir(), "solana-node-"));
  // Another process may still take a chosen pair before the node listens: then another pair.
  for (let attempt = 1; ; attempt++) {
    const port = await freePortPair();
    const start = () => ensureSolana({ root, port, ...opts });
    try {
      return { root, port, start, info: await start() };
    } catch (err) {
      if (!(err instanceof SolanaExitedError) || attempt === 3) throw err;
    }
  }
}

export const keypairOf = (key: LocalSolana["testKey"]): Keypair =>
  Keypair.fromSecretKey(new Uint8Array(getBase58Encoder().encode(key.secretKey)));

/**
 * The stack's Solana node as an e2e file uses it beside the service: a connection at `confirmed`,
 * the USDC mint, the funded test key (the payer), the relayer and the fast fill's vault.
 */
export function stackSolanaOf(service: TestService) {
  const s = service.stack.solana;
  if (!s) throw new Error("the local stack has no Solana node");
  return {
    sol: new Connection(s.rpcUrl, "confirmed"),
    mint: new PublicKey(s.usdcMint),
    payer: keypairOf(s.testKey),
    relayer: new PublicKey(s.relayerKey.publicKey),
    vault: new PublicKey(s.vaultKey.publicKey),
  };
}

/** The chain id the service gives its Solana chain. */
export function solanaChainIdOf(service: TestService): number {
  const chain = service.config.chains?.find((c) => c.family === "solana");
  if (!chain) throw new Error("the service has no Solana chain");
  return chain.chainId;
}

/**
 * A private node at 100 ms slots with what the chain-side tests use of it: a client connection at
 * `confirmed`, the funded relayer and test keys, the USDC mint, and `stop`.
 */
export async function openPrivateSolana() {
  const node = await startPrivateSolana({ slotMs: 100, finalityLag: 10 });
  return {
    node,
    connection: new Connection(node.info.rpcUrl, "confirmed"),
    relayer: keypairOf(node.info.relayerKey),
    depositor: keypairOf(node.info.testKey),
    mint: new PublicKey(node.info.usdcMint),
    stop: () => stopSolana(node.root),
  };
}

/**
 * The body of POST /sessions/:id/solana-burner: the burner proves it holds its key with its ed25519
 * signature (node:crypto, from the keypair's seed) of `deposit-settlement:solana-burner:<session id>`.
 */
export function burnerRegistration(burner: Keypair, sessionId: string) {
  const key = createPrivateKey({
    key: {
      kty: "OKP",
      crv: "Ed25519",
      d: Buffer.from(burner.secretKey.subarray(0, 32)).toString("base64url"),
      x: Buffer.from(burner.publicKey.toBytes()).toString("base64url"),
    },
    format: "jwk",
  });
  const message = Buffer.from(`deposit-settlement:solana-burner:${sessionId}`, "utf8");
  return {
    burner_address: burner.publicKey.toBase58(),
    signature: getBase58Decoder().decode(sign(null, message, key)),
  };
}

/**
 * Gives `owner` SOL and USDC from `payer` in one transaction (its associated USDC account made on the way):
 * a wallet holding both, as the token-options cases need.
 */
export async function fundSolanaWallet(
  connection: Connection,
  payer: Keypair,
  mint: PublicKey,
  owner: PublicKey,
  amounts: { lamports: bigint; usdc: bigint },
): Promise<PublicKey> {
  const to = getAssociatedTokenAddressSync(mint, owner);
  const tx = new Transaction().add(
    SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: owner, lamports: amounts.lamports }),
    createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, to, owner, mint),
    createTransferInstruction(
      getAssociatedTokenAddressSync(mint, payer.publicKey),
      to,
      payer.publicKey,
      amounts.usdc,
    ),
  );
  await sendAndConfirmTransaction(connection, tx, [payer], { commitment: "confirmed" });
  return to;
}
