// A test-only EIP-1193 wallet for the hosted page's browser test: `window.ethereum` in the page (or,
// with `announce`, a provider announced by EIP-6963's `eip6963:announceProvider` only), whose requests cross to this process (playwright's exposeBinding), where a local key signs and
// the local anvil chains answer. Like an extension wallet, it reads the chain with its own RPC (the
// page's CSP does not apply to it) and each eth_sendTransaction is one confirmation by the payer.
import type { BrowserContext } from "playwright-core";
import { type Chain, createWalletClient, defineChain, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export interface TestWallet {
  address: `0x${string}`;
  /** Every transaction the payer confirmed, in order. */
  confirmed: Array<{ chainId: number; to: string; data: Hex | undefined; value: bigint; hash: Hex }>;
}

/** An EIP-1193 error: 4001 user rejected, 4902 unknown chain, 4200 unsupported method. */
const rpcError = (code: number, message: string) => ({ error: { code, message } });

/** How an EIP-6963 wallet names itself: its announcement's `info`. */
export interface Eip6963Info {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

/** An EIP-6963 announcement script: `provider` (a JS expression) announced with `info`, now and on each request. */
export const announceScript = (info: Eip6963Info, provider: string) => `(() => {
  const detail = Object.freeze({ info: Object.freeze(${JSON.stringify(info)}), provider: ${provider} });
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
})();`;

/**
 * Installs the wallet in every page of `context`, holding `privateKey`, on the given chains: as
 * `window.ethereum`, or, given `announce`, only as an EIP-6963 announced provider.
 */
export async function installTestWallet(
  context: BrowserContext,
  privateKey: Hex,
  chains: ReadonlyArray<{ chainId: number; rpcUrl: string }>,
  announce?: Eip6963Info,
): Promise<TestWallet> {
  const account = privateKeyToAccount(privateKey);
  const byId = new Map<number, Chain>(
    chains.map((c) => [
      c.chainId,
      defineChain({
        id: c.chainId,
        name: `chain ${c.chainId}`,
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [c.rpcUrl] } },
      }),
    ]),
  );
  const first = chains[0];
  if (!first) throw new Error("a wallet needs a chain");
  let current = first.chainId;
  const wallet: TestWallet = { address: account.address, confirmed: [] };
  const clientOf = (chainId: number) => {
    const chain = byId.get(chainId);
    if (!chain) throw new Error(`chain ${chainId} is not in the wallet`);
    return createWalletClient({ account, chain, transport: http() });
  };

  await context.exposeBinding("__testWalletRequest", async (_source, method: string, params: unknown[]) => {
    try {
      switch (method) {
        case "eth_requestAccounts":
        case "eth_accounts":
          return { result: [account.address] };
        case "eth_chainId":
          return { result: `0x${current.toString(16)}` };
        case "wallet_switchEthereumChain": {
          const wanted = Number.parseInt((params[0] as { chainId: string }).chainId, 16);
          if (!byId.has(wanted)) return rpcError(4902, `chain ${wanted} is not in the wallet`);
          current = wanted;
          return { result: null };
        }
        case "eth_sendTransaction": {
          const tx = params[0] as { from?: string; to: `0x${string}`; data?: Hex; value?: Hex };
          if (tx.from && tx.from.toLowerCase() !== account.address.toLowerCase())
            return rpcError(4100, "not this wallet's account");
          const value = tx.value ? BigInt(tx.value) : 0n;
          const hash = await clientOf(current).sendTransaction({
            to: tx.to,
            ...(tx.data ? { data: tx.data } : {}),
            value,
          });
          wallet.confirmed.push({ chainId: current, to: tx.to, data: tx.data, value, hash });
          return { result: hash };
        }
        default:
          // Reads go to the chain's node, as a wallet's own RPC answers them.
          return { result: await clientOf(current).request({ method, params } as never) };
      }
    } catch (err) {
      return rpcError(-32603, err instanceof Error ? err.message : String(err));
    }
  });
  // The provider object the page finds; `request` is all EIP-1193 requires of it.
  const provider = `{
    isTestWallet: true,
    async request({ method, params }) {
      const answer = await window.__testWalletRequest(method, params ?? []);
      if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      return answer.result;
    },
    on() {},
    removeListener() {},
  }`;
  await context.addInitScript(
    announce ? announceScript(announce, provider) : `window.ethereum = ${provider};`,
  );
  return wallet;
}
