// What litesvm does not keep: the lamports and token balances of a transaction's accounts before and
// after it, in the RPC's `preBalances` / `preTokenBalances` form.
import type { Address } from "@solana/kit";
import { AccountLayout, MintLayout, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { LiteSVM } from "litesvm";

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

const TOKEN_PROGRAMS = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);

export function uiAmount(amount: bigint, decimals: number): TokenBalance["uiTokenAmount"] {
  const scale = 10n ** BigInt(decimals);
  const frac = (amount % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  const uiAmountString = frac ? `${amount / scale}.${frac}` : `${amount / scale}`;
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString };
}

/** A token account's mint, owner and amount, or null when the account is not one. */
export function readTokenAccount(
  svm: LiteSVM,
  address: string,
): { mint: string; owner: string; amount: bigint; decimals: number; programId: string } | null {
  const account = svm.getAccount(address as Address);
  if (
    !account.exists ||
    !TOKEN_PROGRAMS.has(account.programAddress) ||
    account.data.length < AccountLayout.span
  )
    return null;
  // Token-2022 accounts carry extensions after the base layout; a mint-sized account is not an account.
  if (account.data.length === MintLayout.span) return null;
  const decoded = AccountLayout.decode(account.data.subarray(0, AccountLayout.span));
  const mint = new PublicKey(decoded.mint).toBase58();
  const mintAccount = svm.getAccount(mint as Address);
  if (!mintAccount.exists) return null;
  const { decimals } = MintLayout.decode(mintAccount.data.subarray(0, MintLayout.span));
  return {
    mint,
    owner: new PublicKey(decoded.owner).toBase58(),
    amount: decoded.amount,
    decimals,
    programId: account.programAddress,
  };
}

export function snapshotBalances(
  svm: LiteSVM,
  keys: string[],
): { lamports: number[]; tokens: TokenBalance[] } {
  const lamports = keys.map((key) => Number(svm.getBalance(key as Address) ?? 0n));
  const tokens: TokenBalance[] = [];
  keys.forEach((key, accountIndex) => {
    const t = readTokenAccount(svm, key);
    if (t)
      tokens.push({
        accountIndex,
        mint: t.mint,
        owner: t.owner,
        programId: t.programId,
        uiTokenAmount: uiAmount(t.amount, t.decimals),
      });
  });
  return { lamports, tokens };
}
