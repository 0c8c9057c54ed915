/**
 * Paying a link in USDC on Solana (docs/LINKS.md, "Pay on Solana"): a Solana checkout session, an
 * ed25519 burner made in the browser (the client library's makeSolanaBurner), its address and a
 * Solana Pay request, or the payer's Wallet Standard wallet sending the one transfer; then the
 * client library's paySolanaSession settles it: the bounce setup to the payer's address (kept fresh
 * while the page waits, signed again as soon as the wallet's transfer is confirmed) and the sweep,
 * signed with the burner key once the deposit is seen.
 */

import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { Keypair } from "@solana/web3.js";
import { attachSolanaBounceSetup } from "../../client/actions/attach-solana-bounce-setup.ts";
import { getSolanaBlockhash } from "../../client/actions/get-solana-blockhash.ts";
import {
  BOUNCE_SETUP_REFRESH_MS,
  keepSolanaBounceSetup,
} from "../../client/actions/keep-solana-bounce-setup.ts";
import { makeSolanaBurner } from "../../client/actions/make-solana-burner.ts";
import { paySolanaSession } from "../../client/actions/pay-solana-session.ts";
import { createApiClient } from "../../client/api-client.ts";
import type { SolanaSweepTerms } from "../../client/types.ts";
import { askWallet, explain, keepPayment, origin, settle } from "./follow.ts";
import { formatUsdc, type PageSolana } from "./html.ts";
import { body, type DepositRequest, link, show, showDeposit } from "./page-view.ts";
import { solanaPayUri } from "./payment-uri.ts";
import { type SolanaSavedPayment, savedSession } from "./saved-payment.ts";
import { USDC_DECIMALS } from "./solana-transfer.ts";
import { type SolanaWallet, sendWithSolanaWallet } from "./solana-wallet.ts";

/** The answer of POST /links/:slug/sessions with the Solana chain's `source_chain_id`. */
interface SolanaLinkSession {
  id: string;
  client_secret: string;
  publishable_key: string;
  amount: string;
  expires_at: number;
  sweep?: SolanaSweepTerms;
}

/** Pays by address and QR code (`wallet` null), or through the payer's wallet, whose account is the refund address. */
export async function startSolana(chain: PageSolana, refundTo: string, wallet: SolanaWallet | null) {
  show("Creating your payment…");
  const created = await createApiClient({ baseUrl: origin }).request<SolanaLinkSession>({
    method: "POST",
    path: `/links/${encodeURIComponent(link.slug)}/sessions`,
    body: { source_chain_id: chain.chain_id },
    // A retry would make a second, unused session: harmless, but one try is enough here.
    attempts: 1,
  });
  if (!created.sweep) throw new Error("The service did not answer a Solana session.");
  body.dataset.session = created.id;
  show(`Preparing your payment in USDC on ${chain.name}…`);
  const burner = makeSolanaBurner();
  const payment: SolanaSavedPayment = {
    v: 1,
    family: "solana",
    ...savedSession(created),
    chain,
    terms: created.sweep,
    burnerKey: getBase58Decoder().decode(burner.keypair.secretKey),
    // Solana Pay's reference names this one request: a key of its own, never used to sign.
    reference: Keypair.generate().publicKey.toBase58(),
    refundTo,
    ...(wallet ? { wallet: true } : {}),
  };
  keepPayment(payment);
  await followSolana(payment, wallet);
}

/** From a saved Solana payment to its end; `wallet` is the payer's when it is paying now (null after a reload). */
export async function followSolana(payment: SolanaSavedPayment, wallet: SolanaWallet | null) {
  const { sessionId: id, chain, terms, refundTo } = payment;
  const burner = makeSolanaBurner({
    secretKey: new Uint8Array(getBase58Encoder().encode(payment.burnerKey)),
  });
  const keeping = new AbortController();
  await settle({
    payment,
    refundTo,
    returnedBy: "bounce",
    pay: async (client, onSession) => {
      const setup = { id, terms, burner, refundTo };
      const warn = (err: unknown) =>
        console.warn(`the bounce setup waits for the next round: ${explain(err)}`);
      /**
       * Once registered: a bounce setup is handed over before the address is shown, then signed again
       * on a new blockhash every BOUNCE_SETUP_REFRESH_MS while the page waits, so a payer who pays by
       * hand and closes the tab before the deposit is seen is still bounced (docs/LINKS.md, "A Solana
       * tab closed before detection"). Then the wallet, if the payer pays with one, is asked for the
       * one transfer.
       */
      const registered = async () => {
        // false: the service takes no more setups (one was relayed, or the session moved on).
        const takes = await attachSolanaBounceSetup(client, setup).catch((err: unknown) => {
          warn(err);
          return true;
        });
        if (takes)
          void keepSolanaBounceSetup(client, {
            ...setup,
            startIn: BOUNCE_SETUP_REFRESH_MS,
            onError: warn,
            signal: keeping.signal,
          });
        await showDeposit(solanaDeposit(burner.address, payment), payment.expiresAt, refundTo);
        if (!wallet) return;
        const sent = await askWallet(payment, async () => {
          const { blockhash } = await getSolanaBlockhash(client, { chainId: chain.chain_id });
          await sendWithSolanaWallet(wallet, {
            from: refundTo,
            to: burner.address,
            mint: chain.usdc_mint,
            amount: BigInt(payment.amount),
            blockhash,
          });
        });
        // The transfer is confirmed: the bounce setup is handed over now, not at detection, so a tab
        // closed from here on still ends settled or bounced (docs/LINKS.md, "When the page is closed").
        // Failing here, it is signed again once the deposit is detected.
        if (sent) await attachSolanaBounceSetup(client, setup).catch(warn);
      };
      await paySolanaSession(client, {
        id,
        terms,
        burner,
        refundTo,
        // The merchant's app fee comes out of the link's amount, never on top of it: the payer signs
        // the one the session was made with.
        maxAppFeeBps: terms.app_fee_bps,
        detectionTimeout: Math.max(payment.expiresAt * 1000 - Date.now(), 60_000),
        onRegistered: registered,
        onSession,
      }).finally(() => keeping.abort());
    },
  });
}

/** The Solana Pay transfer request of the link's amount of USDC to the burner, with the payment's reference. */
export const solanaDeposit = (address: string, payment: SolanaSavedPayment): DepositRequest => ({
  address,
  amount: `${formatUsdc(payment.amount)} USDC`,
  chain: `${payment.chain.name} (Solana)`,
  uri: solanaPayUri({
    recipient: address,
    amount: BigInt(payment.amount),
    decimals: USDC_DECIMALS,
    splToken: payment.chain.usdc_mint,
    reference: payment.reference,
  }),
});
