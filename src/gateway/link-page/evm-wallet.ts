/**
 * The payer's own EVM wallet, injected by an extension or a wallet's browser as `window.ethereum`
 * (EIP-1193): the page asks it for the payer's address (where a refund goes), reads the chain through
 * it (the page itself reaches only its own origin) and asks it to send the one transfer, which the
 * payer confirms once in the wallet.
 */
import {
  type Address,
  createPublicClient,
  custom,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  numberToHex,
} from "viem";

/** The part of EIP-1193 the page uses. */
export interface Eip1193Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** The zero address: how the service names a chain's coin. */
const COIN = "0x0000000000000000000000000000000000000000";

/** The wallet the browser injected, or null (none: the page pays by address and QR code only). */
export const injectedWallet = (): Eip1193Provider | null =>
  (globalThis as unknown as { ethereum?: Eip1193Provider }).ethereum ?? null;

/** The account the payer lets the page see (the wallet asks them first). */
export async function connectWallet(wallet: Eip1193Provider): Promise<Address> {
  const accounts = (await wallet.request({ method: "eth_requestAccounts" })) as string[];
  const [first] = accounts;
  if (!first) throw new Error("Your wallet shared no account.");
  return getAddress(first);
}

/** A reader of the chain through the wallet's own RPC: the payer's check of a swap's floor. */
export const walletReader = (wallet: Eip1193Provider) => createPublicClient({ transport: custom(wallet) });

/**
 * Asks the wallet to send `amount` of `token` (the zero address: the coin) to `to` on `chainId`,
 * switching the wallet to that chain first: one transaction, one confirmation. Resolves with its hash.
 */
export async function sendWithWallet(
  wallet: Eip1193Provider,
  p: { from: Address; chainId: number; token: string; to: Address; amount: bigint },
): Promise<Hex> {
  const on = Number(await wallet.request({ method: "eth_chainId" }));
  if (on !== p.chainId)
    await wallet.request({
      method: "wallet_switchEthereumChain",
      params: [{ chainId: numberToHex(p.chainId) }],
    });
  const tx =
    p.token.toLowerCase() === COIN
      ? { from: p.from, to: p.to, value: numberToHex(p.amount) }
      : {
          from: p.from,
          to: p.token,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [p.to, p.amount] }),
        };
  return (await wallet.request({ method: "eth_sendTransaction", params: [tx] })) as Hex;
}
