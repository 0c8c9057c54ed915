// The service's vault on the local node: where a sweep for an EVM destination sends a Solana deposit
// (docs/SOLANA.md). Made once per chain, over RPC like any client would, so a node already running
// (or a chain from before the vault existed) gets one without a restart: a keypair kept beside the
// chain in vault.json, funded with SOL by the genesis faucet and given its USDC associated token account.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";

/** What the vault holds in SOL: rent for its accounts, never the money it receives. */
const VAULT_LAMPORTS = LAMPORTS_PER_SOL;

async function readKeypair(file: string): Promise<Keypair | null> {
  const text = await readFile(file, "utf8").catch(() => null);
  return text === null ? null : Keypair.fromSecretKey(Uint8Array.from(JSON.parse(text) as number[]));
}

/** A keypair kept in `file`, made on first use; safe to call from several processes at once. */
export async function localKeypair(file: string): Promise<Keypair> {
  const kept = await readKeypair(file);
  if (kept) return kept;
  const made = Keypair.generate();
  // wx: the first process to get here writes it; another reads that one.
  await writeFile(file, JSON.stringify(Array.from(made.secretKey)), { mode: 0o600, flag: "wx" }).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    },
  );
  return (await readKeypair(file)) as Keypair;
}

/** The vault's keypair, made and funded on first use; safe to call from several processes at once. */
export async function ensureVault(opts: { rpcUrl: string; dir: string; usdcMint: string }): Promise<Keypair> {
  const vault = await localKeypair(path.join(opts.dir, "vault.json"));
  const connection = new Connection(opts.rpcUrl, "confirmed");
  if ((await connection.getBalance(vault.publicKey)) === 0) {
    const faucet = await genesisKeypair(opts.dir, "faucet");
    const mint = new PublicKey(opts.usdcMint);
    const ata = getAssociatedTokenAddressSync(mint, vault.publicKey);
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: faucet.publicKey,
        toPubkey: vault.publicKey,
        lamports: VAULT_LAMPORTS,
      }),
      createAssociatedTokenAccountIdempotentInstruction(faucet.publicKey, ata, vault.publicKey, mint),
    );
    await sendAndConfirmTransaction(connection, tx, [faucet], { commitment: "confirmed" });
  }
  return vault;
}

/** One of the keys the node's genesis made (genesis.ts): "faucet", "mintAuthority", ... */
export async function genesisKeypair(dir: string, name: string): Promise<Keypair> {
  const saved = JSON.parse(await readFile(path.join(dir, "genesis.json"), "utf8")) as Record<
    string,
    number[]
  >;
  const secret = saved[name];
  if (!secret) throw new Error(`genesis.json has no key ${name}`);
  return Keypair.fromSecretKey(Uint8Array.from(secret));
}
