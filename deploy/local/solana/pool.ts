// The local SOL/USDC pool: the reserves our local Jupiter (deploy/local/providers/jupiter.ts) prices SOL
// and quotes swaps from, so a price is read from the node's state, never a constant in the server. A
// constant-product pool holds its SOL as the lamports of a pool key and its USDC in that key's
// associated USDC account; both are seeded once per chain over RPC, like the vault (vault.ts). Nothing
// swaps against it here (quotes only), so the price stays at the seeded ratio unless someone moves the
// reserves on purpose, which is how a test would move the price.
import path from "node:path";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import {
  Connection,
  type Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { genesisKeypair, localKeypair } from "./vault.ts";

/** The seeded reserves: 200 SOL against 30,000 USDC, so SOL starts at 150 USD. */
export const POOL_SEED = { lamports: 200n * BigInt(LAMPORTS_PER_SOL), usdc: 30_000n * 10n ** 6n };

/** The pool's key (its SOL reserve) and USDC reserve account. */
export interface LocalPool {
  key: Keypair;
  usdcAccount: PublicKey;
}

/** The pool, made and seeded on first use; safe to call from several processes at once. */
export async function ensurePool(opts: {
  rpcUrl: string;
  dir: string;
  usdcMint: string;
}): Promise<LocalPool> {
  const key = await localKeypair(path.join(opts.dir, "pool.json"));
  const mint = new PublicKey(opts.usdcMint);
  const usdcAccount = getAssociatedTokenAddressSync(mint, key.publicKey);
  const connection = new Connection(opts.rpcUrl, "confirmed");
  if ((await connection.getBalance(key.publicKey)) === 0) {
    const [faucet, mintAuthority] = await Promise.all([
      genesisKeypair(opts.dir, "faucet"),
      genesisKeypair(opts.dir, "mintAuthority"),
    ]);
    // One transaction: the two reserves appear together, so no reader ever sees a pool with one side.
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: faucet.publicKey,
        toPubkey: key.publicKey,
        lamports: POOL_SEED.lamports,
      }),
      createAssociatedTokenAccountIdempotentInstruction(faucet.publicKey, usdcAccount, key.publicKey, mint),
      createMintToInstruction(mint, usdcAccount, mintAuthority.publicKey, POOL_SEED.usdc),
    );
    await sendAndConfirmTransaction(connection, tx, [faucet, mintAuthority], { commitment: "confirmed" });
  }
  return { key, usdcAccount };
}
