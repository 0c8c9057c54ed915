/**
 * EIP-6963 (multi injected provider discovery): every EVM wallet installed in the browser announces
 * itself with an `eip6963:announceProvider` event (its name, icon, reverse-DNS id and its EIP-1193
 * provider), in answer to the page's `eip6963:requestProvider` or when it loads later, instead of
 * all of them fighting over `window.ethereum`. The page lists them and the payer picks one.
 */
import type { Eip1193Provider } from "./evm-wallet.ts";

/** A wallet as it announced itself (EIP-6963's `EIP6963ProviderDetail`, checked). */
export interface AnnouncedWallet {
  /** Unique for this page's life (a v4 UUID by the standard). */
  uuid: string;
  name: string;
  /** A `data:image/…` URI, or "" when it announced none the page can show. */
  icon: string;
  /** Reverse-DNS id, stable across page loads (e.g. `io.metamask`): how a resumed page finds it again. */
  rdns: string;
  provider: Eip1193Provider;
}

interface WindowEvents {
  addEventListener(type: string, listener: (event: { detail?: unknown }) => void): void;
  dispatchEvent(event: unknown): boolean;
  Event: new (type: string) => unknown;
}

/** Longest wallet name shown: a name is the wallet's own text, shown as text only. */
const MAX_NAME = 64;

/**
 * The announcement's detail, if it is one: anything may dispatch that event, so only a detail with
 * the standard's string fields and a provider that has `request` is taken.
 */
export function announcedWallet(detail: unknown): AnnouncedWallet | null {
  if (typeof detail !== "object" || detail === null) return null;
  const { info, provider } = detail as { info?: Record<string, unknown>; provider?: { request?: unknown } };
  if (typeof info !== "object" || info === null || typeof provider?.request !== "function") return null;
  const { uuid, name, icon, rdns } = info;
  if (typeof uuid !== "string" || uuid === "" || typeof rdns !== "string" || rdns === "") return null;
  if (typeof name !== "string" || name.trim() === "") return null;
  return {
    uuid,
    name: name.trim().slice(0, MAX_NAME),
    // The page's CSP shows images from data: only; the standard asks for a data URI anyway.
    icon: typeof icon === "string" && icon.startsWith("data:image/") ? icon : "",
    rdns,
    provider: provider as Eip1193Provider,
  };
}

/**
 * Calls `found` once per wallet (by uuid) that announces itself, now (wallets answer the request
 * at once, so those already there are found before this returns) or later.
 */
export function watchEvmWallets(found: (wallet: AnnouncedWallet) => void): void {
  const win = globalThis as unknown as WindowEvents;
  const seen = new Set<string>();
  win.addEventListener("eip6963:announceProvider", (event) => {
    const wallet = announcedWallet(event.detail);
    if (!wallet || seen.has(wallet.uuid)) return;
    seen.add(wallet.uuid);
    found(wallet);
  });
  win.dispatchEvent(new win.Event("eip6963:requestProvider"));
}
