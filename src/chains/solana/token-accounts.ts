import {
  type Account,
  getAccount,
  getAssociatedTokenAddressSync,
  TokenAccountNotFoundError,
} from "@solana/spl-token";
import type { Commitment, Connection, PublicKey } from "@solana/web3.js";

/** A token account, or null where none exists (never created, or closed by a sweep, bounce or withdrawal). */
export async function tokenAccountOrNull(
  connection: Connection,
  address: PublicKey,
  commitment: Commitment = "confirmed",
): Promise<Account | null> {
  try {
    return await getAccount(connection, address, commitment);
  } catch (err) {
    if (err instanceof TokenAccountNotFoundError) return null;
    throw err;
  }
}

/** What `owner`'s associated account of `mint` holds: 0 when it has none. */
export async function associatedTokenBalance(
  connection: Connection,
  mint: PublicKey,
  owner: PublicKey,
  commitment: Commitment = "confirmed",
): Promise<bigint> {
  const account = await tokenAccountOrNull(
    connection,
    getAssociatedTokenAddressSync(mint, owner, true),
    commitment,
  );
  return account?.amount ?? 0n;
}
