/**
 * The payment the hosted page is driving, kept in the browser's localStorage so that a reload, or
 * the link opened again in the same browser, resumes it: the burner key signs the Intent once the
 * deposit is seen, and without it the session cannot settle. One entry per link, holding the one
 * session it is for; removed once that session is final (paid, or the money returned). Anyone with
 * this browser profile can read it until then (docs/LINKS.md, "A shared computer").
 */
import type { Address, Hex } from "viem";
import type { SolanaSweepTerms } from "../../client/types.ts";
import type { Authorization } from "../../domain/types.ts";
import type { PageSolana } from "./html.ts";

/** A token a chain can be paid in, with the amount of it that pays the link (base units). */
export interface PayOption {
  token: Address;
  symbol: string;
  decimals: number;
  amount: string;
}

/** A chain the link's session can be paid on, as POST /links/:slug/sessions answers it. */
export interface LinkChain {
  chain_id: number;
  name: string;
  delegate: Address;
  usdc: Address;
  tokens: PayOption[];
}

/** A payment on an EVM chain or on Solana: what the page saved tells which it resumes. */
export type SavedPayment = EvmSavedPayment | SolanaSavedPayment;

export interface EvmSavedPayment {
  v: 1;
  family?: undefined;
  sessionId: string;
  clientSecret: string;
  publishableKey: string;
  /** USDC base units. */
  amount: string;
  /** Unix seconds. */
  expiresAt: number;
  chain: LinkChain;
  /** What the payer chose to pay in; absent in a payment saved before the choice existed: USDC. */
  token?: PayOption;
  /** Paid through the payer's injected wallet (its account the refund address). */
  wallet?: true;
  /** The EIP-6963 wallet picked (its reverse-DNS id), found again by a resumed page; absent: `window.ethereum`. */
  walletRdns?: string;
  /** The wallet sent the transfer: a resumed page does not ask it again. */
  sent?: true;
  burnerKey: Hex;
  eip7702Auth: Authorization;
  /** The standing refund the burner signed before its address was shown: resent on a resumed register. */
  standingRefund: { to: Address; deadline: number; signatures: Record<string, Hex> };
}

/** A payment in USDC on Solana (docs/LINKS.md, "Pay on Solana"). */
export interface SolanaSavedPayment {
  v: 1;
  family: "solana";
  sessionId: string;
  clientSecret: string;
  publishableKey: string;
  /** USDC base units. */
  amount: string;
  /** Unix seconds. */
  expiresAt: number;
  chain: PageSolana;
  /** What the sweep the burner signs must pay, as the session's creation answered it. */
  terms: SolanaSweepTerms;
  /** The burner's 64-byte secret key, base58: it signs the bounce setup and the sweep after the deposit. */
  burnerKey: string;
  /** The Solana Pay reference in the QR code: a key of its own, naming this payment request. */
  reference: string;
  /** The payer's Solana wallet, where a bounce returns the USDC (signed once the deposit is seen). */
  refundTo: string;
  /** Paid through a Wallet Standard wallet (its account the refund address). */
  wallet?: true;
  /** The wallet sent the transfer: a resumed page does not ask it again. */
  sent?: true;
}

/**
 * Whether the saved payment settles by a sweep its burner signs against the terms the session's
 * creation answered (./solana-payment.ts), rather than by an Intent signed once the deposit is
 * seen: what the payment carries says how it resumes.
 */
export const settlesBySweep = (saved: SavedPayment): saved is SolanaSavedPayment =>
  (saved as Partial<SolanaSavedPayment>).terms !== undefined;

/** What every saved payment keeps of its session, from POST /links/:slug/sessions' answer. */
export const savedSession = (created: {
  id: string;
  client_secret: string;
  publishable_key: string;
  amount: string;
  expires_at: number;
}) => ({
  sessionId: created.id,
  clientSecret: created.client_secret,
  publishableKey: created.publishable_key,
  amount: created.amount,
  expiresAt: created.expires_at,
});

interface Storage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}
const storage = (globalThis as unknown as { localStorage?: Storage }).localStorage;

const keyOf = (slug: string) => `deposit-link:${slug}`;

/** The payment saved for this link, or null (none, or an entry this page cannot read). */
export function loadPayment(slug: string): SavedPayment | null {
  try {
    const saved = JSON.parse(storage?.getItem(keyOf(slug)) ?? "null") as SavedPayment | null;
    return saved?.v === 1 && typeof saved.sessionId === "string" && typeof saved.burnerKey === "string"
      ? saved
      : null;
  } catch {
    return null;
  }
}

/**
 * Saves the payment before its address is shown. False when the browser refuses (storage off or
 * full): the page then cannot resume after a reload, and the standing refund is the way back.
 */
export function savePayment(slug: string, payment: SavedPayment): boolean {
  try {
    storage?.setItem(keyOf(slug), JSON.stringify(payment));
    return storage !== undefined;
  } catch {
    return false;
  }
}

/** Forgets the payment (and its burner key) once its session is final. */
export function clearPayment(slug: string): void {
  try {
    storage?.removeItem(keyOf(slug));
  } catch {
    // Storage that cannot be written holds nothing of ours.
  }
}
