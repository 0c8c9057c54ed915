// A test-only Wallet Standard wallet for the hosted page's browser test, the Solana counterpart of
// ./evm-test-wallet.ts: it registers itself with the page's `@wallet-standard/app` by the standard's
// window events, and each `solana:signAndSendTransaction` crosses to this process (playwright's
// exposeBinding), where a local Keypair signs and sends it over the local Solana node: one
// confirmation by the payer per transaction.
import { type Connection, type Keypair, Transaction } from "@solana/web3.js";
import type { BrowserContext } from "playwright-core";

export interface TestSolanaWallet {
  address: string;
  /** Every transaction the payer confirmed, by signature (base58), in order. */
  confirmed: string[];
}

/** Installs the wallet in every page of `context`, holding `keypair`, on the local node (`solana:localnet`). */
export async function installSolanaTestWallet(
  context: BrowserContext,
  keypair: Keypair,
  connection: Connection,
): Promise<TestSolanaWallet> {
  const wallet: TestSolanaWallet = { address: keypair.publicKey.toBase58(), confirmed: [] };
  await context.exposeBinding(
    "__testSolanaWallet",
    async (_source, bytes: number[], account: string): Promise<{ signature?: number[]; error?: string }> => {
      try {
        if (account !== wallet.address) return { error: "not this wallet's account" };
        const tx = Transaction.from(Buffer.from(bytes));
        tx.partialSign(keypair);
        const signature = await connection.sendRawTransaction(tx.serialize());
        // As a wallet does: it reports the transaction sent once the node has confirmed it.
        for (let tries = 0; ; tries++) {
          const { value } = await connection.getSignatureStatus(signature);
          if (value?.err) return { error: `the transfer failed: ${JSON.stringify(value.err)}` };
          if (value?.confirmationStatus === "confirmed" || value?.confirmationStatus === "finalized") break;
          if (tries > 100) return { error: "the transfer was not confirmed" };
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        wallet.confirmed.push(signature);
        return { signature: [...(tx.signature ?? [])] };
      } catch (err) {
        return { error: err instanceof Error ? err.message : String(err) };
      }
    },
  );
  // The wallet as the standard defines it; it registers when the app is ready, or at once if it was.
  await context.addInitScript(`(() => {
    const chains = ["solana:localnet"];
    const features = {
      "standard:connect": { version: "1.0.0", connect: async () => ({ accounts: [account] }) },
      "standard:events": { version: "1.0.0", on: () => () => {} },
      "solana:signAndSendTransaction": {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signAndSendTransaction: (...inputs) => Promise.all(inputs.map(async (input) => {
          const answer = await window.__testSolanaWallet(Array.from(input.transaction), input.account.address);
          if (answer.error) throw new Error(answer.error);
          return { signature: new Uint8Array(answer.signature) };
        })),
      },
    };
    const account = {
      address: ${JSON.stringify(wallet.address)},
      publicKey: new Uint8Array(${JSON.stringify([...keypair.publicKey.toBytes()])}),
      chains,
      features: ["solana:signAndSendTransaction"],
    };
    const wallet = {
      version: "1.0.0",
      name: "Test Solana Wallet",
      icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
      chains,
      features,
      accounts: [account],
    };
    const callback = ({ register }) => register(wallet);
    window.addEventListener("wallet-standard:app-ready", (event) => callback(event.detail));
    window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: callback }));
  })();`);
  return wallet;
}
