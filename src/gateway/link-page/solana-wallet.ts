/**
 * The payer's own Solana wallet, found through the Wallet Standard (`@wallet-standard/app`): the page
 * asks it for an account (where a bounce returns the USDC) and to sign and send the one USDC transfer
 * to the burner, which the payer confirms once in the wallet. Only a wallet that can do both, on the
 * link's Solana chain, is offered.
 */
import { getWallets } from "@wallet-standard/app";
import { usdcTransfer, walletStandardChain } from "./solana-transfer.ts";

type Wallet = ReturnType<ReturnType<typeof getWallets>["get"]>[number];
type WalletAccount = Wallet["accounts"][number];

/** The features the page uses, as the Wallet Standard and its Solana features define them. */
interface Connect {
  connect(input?: { silent?: boolean }): Promise<{ accounts: readonly WalletAccount[] }>;
}
interface SignAndSendTransaction {
  signAndSendTransaction(
    ...inputs: Array<{ account: WalletAccount; transaction: Uint8Array; chain: string }>
  ): Promise<Array<{ signature: Uint8Array }>>;
}
const CONNECT = "standard:connect";
const SIGN_AND_SEND = "solana:signAndSendTransaction";

/** A wallet that can connect and sign and send a transaction on `chainId`. */
export interface SolanaWallet {
  name: string;
  wallet: Wallet;
  chain: `solana:${string}`;
}

/**
 * Calls `found` with the first wallet that can pay on `chainId`, now or once one registers (a wallet
 * extension may load after the page's script).
 */
export function watchSolanaWallets(chainId: number, found: (wallet: SolanaWallet) => void): void {
  const chain = walletStandardChain(chainId);
  const fits = (w: Wallet) =>
    CONNECT in w.features && SIGN_AND_SEND in w.features && w.chains.includes(chain);
  const wallets = getWallets();
  let offered = false;
  const offer = (list: readonly Wallet[]) => {
    const wallet = list.find(fits);
    if (!wallet || offered) return;
    offered = true;
    found({ name: wallet.name, wallet, chain });
  };
  offer(wallets.get());
  wallets.on("register", (...registered) => offer(registered));
}

/** The wallet's account the payer lets the page see (the wallet asks them first), base58. */
export async function connectSolanaWallet(w: SolanaWallet): Promise<string> {
  const { accounts } = await (w.wallet.features[CONNECT] as Connect).connect();
  const account = accounts.find((a) => a.chains.includes(w.chain)) ?? accounts[0];
  if (!account) throw new Error("Your wallet shared no account.");
  return account.address;
}

/**
 * Asks the wallet to sign and send the USDC transfer to the burner (`usdcTransfer`): one
 * transaction, one confirmation. Resolves once the wallet says it was sent.
 */
export async function sendWithSolanaWallet(
  w: SolanaWallet,
  p: { from: string; to: string; mint: string; amount: bigint; blockhash: string },
): Promise<void> {
  const account = w.wallet.accounts.find((a) => a.address === p.from);
  if (!account) throw new Error("Your wallet no longer shares this account.");
  const transaction = usdcTransfer(p).serialize({ requireAllSignatures: false, verifySignatures: false });
  await (w.wallet.features[SIGN_AND_SEND] as SignAndSendTransaction).signAndSendTransaction({
    account,
    transaction: new Uint8Array(transaction),
    chain: w.chain,
  });
}
