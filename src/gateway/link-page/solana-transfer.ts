/**
 * The Solana pieces of the hosted page that need no browser: which addresses a refund can go to,
 * the Wallet Standard name of a chain, and the one USDC transfer a payer's wallet is asked to send.
 */
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from "@solana/spl-token";
import { PublicKey, Transaction } from "@solana/web3.js";

/** USDC's decimals on every chain the service takes it on. */
export const USDC_DECIMALS = 6;

/** The interface's Solana mainnet chain id (src/chains/solana/config.ts); the local node is 792703810. */
const SOLANA_MAINNET = 792703809;
const SOLANA_LOCAL = 792703810;

/**
 * A Solana wallet's address as the payer typed it, in PublicKey's spelling, or null: 32 bytes of
 * base58 on the ed25519 curve. A program-derived address (off the curve) has no key to sign with,
 * and the bounce setup the burner signs refuses it, so the page refuses it before asking anything.
 */
export function solanaWallet(given: string): string | null {
  try {
    const key = new PublicKey(given);
    return key.toBase58() === given && PublicKey.isOnCurve(key.toBytes()) ? given : null;
  } catch {
    return null;
  }
}

/** The Wallet Standard chain (`solana:mainnet`, `solana:localnet`) of one of the service's Solana chain ids. */
export function walletStandardChain(chainId: number): `solana:${string}` {
  if (chainId === SOLANA_MAINNET) return "solana:mainnet";
  if (chainId === SOLANA_LOCAL) return "solana:localnet";
  throw new RangeError(`chain ${chainId} is not a Solana chain a wallet knows`);
}

/**
 * The payer's one transfer: USDC from the wallet's associated token account to the burner's, opened
 * in the same transaction if it does not exist yet (idempotently, at the payer's cost, as any wallet
 * paying a fresh address does), the wallet paying the fee. Unsigned: the wallet signs and sends it.
 */
export function usdcTransfer(p: {
  from: string;
  to: string;
  mint: string;
  amount: bigint;
  blockhash: string;
}): Transaction {
  const payer = new PublicKey(p.from);
  const owner = new PublicKey(p.to);
  const mint = new PublicKey(p.mint);
  const destination = getAssociatedTokenAddressSync(mint, owner);
  const tx = new Transaction({ feePayer: payer, recentBlockhash: p.blockhash });
  tx.add(
    createAssociatedTokenAccountIdempotentInstruction(payer, destination, owner, mint),
    createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, payer),
      mint,
      destination,
      payer,
      p.amount,
      USDC_DECIMALS,
    ),
  );
  return tx;
}
