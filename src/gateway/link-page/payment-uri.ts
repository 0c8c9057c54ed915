/**
 * The payment requests a phone wallet reads from the page's QR code, so it proposes the exact
 * transfer (token, amount, chain) instead of a bare address the payer types an amount for.
 */
import { formatUnits } from "viem";

/** The zero address: how the service names a chain's coin (NATIVE_TOKEN). */
const COIN = "0x0000000000000000000000000000000000000000";

/**
 * An EIP-681 payment request on an EVM chain: `ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<amount>`
 * for an ERC-20, `ethereum:<to>@<chainId>?value=<amount>` for the coin (`token` the zero address).
 * Amounts are integers in base units, which EIP-681 allows and every wallet parses.
 */
export function eip681Uri(p: { token: string; chainId: number; to: string; amount: bigint }): string {
  if (p.amount < 0n) throw new RangeError("an amount to pay is not negative");
  return p.token.toLowerCase() === COIN
    ? `ethereum:${p.to}@${p.chainId}?value=${p.amount}`
    : `ethereum:${p.token}@${p.chainId}/transfer?address=${p.to}&uint256=${p.amount}`;
}

/**
 * A Solana Pay transfer request: `solana:<recipient>?amount=<decimal>&spl-token=<mint>&reference=<key>`.
 * The amount is in whole tokens, as the spec wants it: a decimal with a leading zero below one, no
 * exponent, at most the mint's decimals (viem's formatUnits writes exactly that). The recipient is
 * the wallet that owns the token account, which the paying wallet derives.
 */
export function solanaPayUri(p: {
  recipient: string;
  amount: bigint;
  decimals: number;
  splToken: string;
  reference: string;
}): string {
  if (p.amount < 0n) throw new RangeError("an amount to pay is not negative");
  const query = new URLSearchParams({
    amount: formatUnits(p.amount, p.decimals),
    "spl-token": p.splToken,
    reference: p.reference,
  });
  return `solana:${p.recipient}?${query}`;
}
