// The Solana bounce and the payer's refund on the local stack (docs/SOLANA.md, "The bounce", "The
// payer's refund"): a merchant's Solana checkout whose payer signed the bounce setup costs the relayer
// nothing while no deposit exists, expires, receives USDC late and is bounced to the signed refund address, payment.bounced delivered and verified with
// the merchant library; money after the bounce is not the relayer's to move (nothing sent), and the
// payer takes it back with POST /sessions/:id/solana-refund. Every balance is read on the Solana node.

import { randomUUID } from "node:crypto";
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { type Connection, type Keypair, PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSolanaRefund } from "../../src/chains/solana/refund.ts";
import { associatedTokenBalance } from "../../src/chains/solana/token-accounts.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { signSolanaBounceSetup } from "../../src/client/actions/sign-solana-bounce-setup.ts";
import { createApiClient, getSession, type Session } from "../../src/client/index.ts";
import { verifyWebhook } from "../../src/client/merchant/verify-webhook.ts";
import { waitFor } from "../support/actor-host.ts";
import { type LocalServer, serve } from "../support/local-http.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";
import { burnerRegistration, solanaChainIdOf, stackSolanaOf } from "../support/solana-node.ts";

const T = 60_000;
const OPERATOR_SECRET = `operator-${"b".repeat(40)}`;
const TTL_SECONDS = 10;

let svc: TestService;
let receiver: LocalServer;
let sol: Connection;
let chainId: number;
let mint: PublicKey;
let payer: Keypair;
let relayer: PublicKey;

beforeAll(async () => {
  svc = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor", "webhooks"],
    env: {
      MERCHANT_MODE: "development",
      OPERATOR_SECRET,
      RATE_LIMIT_BURST: "1000",
      WEBHOOK_ALLOW_INSECURE: "true",
      WEBHOOK_POLL_MS: "100",
      SESSION_TTL_SECONDS: String(TTL_SECONDS),
    },
  });
  receiver = await serve((_req, res) => res.writeHead(200).end());
  ({ sol, mint, payer, relayer } = stackSolanaOf(svc));
  chainId = solanaChainIdOf(svc);
}, 240_000);
afterAll(async () => {
  await receiver?.close();
  await svc?.stop();
});

async function api(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${svc.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const client = () => createApiClient({ baseUrl: svc.url });
const blockhash = async () => ((await api("/solana/blockhash")).body as { blockhash: string }).blockhash;

const usdcOf = (owner: PublicKey): Promise<bigint> => associatedTokenBalance(sol, mint, owner);
const lamportsOf = async (key: PublicKey) => BigInt(await sol.getBalance(key, "confirmed"));
/** The payer sends USDC to the burner (creating its USDC account when the bounce closed it). */
async function pay(burner: PublicKey, amount: bigint) {
  const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
  const to = await getOrCreateAssociatedTokenAccount(sol, payer, mint, burner);
  await transfer(sol, payer, from.address, to.address, payer, amount);
}

/** A merchant's Solana checkout, its webhook endpoint set, and the payer's burner with its bounce setup. */
const co = { id: "", secret: "", burner: makeSolanaBurner().keypair, wallet: PublicKey.default };

describe("a merchant's Solana checkout that expires and receives money late", () => {
  it(
    "is bounced: the late USDC goes to the refund address the burner signed, status bounced, payment.bounced verified",
    async () => {
      const created = await api("/v1/operator/merchants", {
        headers: bearer(OPERATOR_SECRET),
        body: { name: "Bounce Shop", email: `bounce-${randomUUID()}@merchant.test` },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const sk = bearer(created.body.secret_key);
      const pk = created.body.publishable_key as string;
      const dest = (
        await getOrCreateAssociatedTokenAccount(sol, payer, mint, makeSolanaBurner().keypair.publicKey)
      ).owner;
      const pin = await api("/v1/destinations", {
        method: "PUT",
        headers: sk,
        body: { source_chain_id: chainId, dest_address: dest.toBase58(), dest_chain_id: chainId },
      });
      expect(pin.status, JSON.stringify(pin.body)).toBe(200);
      const hook = await api("/v1/webhook_endpoints", {
        method: "PUT",
        headers: sk,
        body: { url: `http://localhost:${new URL(receiver.url).port}/hook` },
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(200);
      co.secret = hook.body.secret;

      const session = await api("/v1/payment_sessions", {
        headers: sk,
        body: { amount: "5000000", source_chain_id: chainId },
      });
      expect(session.status, JSON.stringify(session.body)).toBe(200);
      co.id = session.body.id;
      // The payer's wallet, where it paid from: its USDC account exists.
      co.wallet = (
        await getOrCreateAssociatedTokenAccount(sol, payer, mint, makeSolanaBurner().keypair.publicKey)
      ).owner;
      const bounce_setup = signSolanaBounceSetup({
        sessionId: co.id,
        burner: co.burner,
        refundTo: co.wallet.toBase58(),
        relayer: relayer.toBase58(),
        mint: mint.toBase58(),
        blockhash: await blockhash(),
      });
      const relayerBefore = await lamportsOf(relayer);
      const registered = await api(`/sessions/${co.id}/solana-burner`, {
        body: { ...burnerRegistration(co.burner, co.id), bounce_setup },
        headers: { ...bearer(pk), "x-client-secret": session.body.client_secret },
      });
      expect(registered.status, JSON.stringify(registered.body)).toBe(200);

      // Registered, never paid, expired: the relayer relayed nothing, opened nothing, paid nothing.
      await sessionUntil(client(), co.id, (s) => s.status === "expired", (TTL_SECONDS + 15) * 1000);
      const account = getAssociatedTokenAddressSync(mint, co.burner.publicKey);
      expect(await sol.getAccountInfo(account)).toBeNull();
      expect(await lamportsOf(relayer)).toBe(relayerBefore);

      // The late deposit opens the account (the payer pays its rent); the setup is relayed, then the bounce.
      const walletBefore = await lamportsOf(co.wallet);
      await pay(co.burner.publicKey, 5_000_000n);
      const rent = BigInt(await sol.getMinimumBalanceForRentExemption(165)); // a token account's
      const bounced: Session = await sessionUntil(client(), co.id, (s) => s.status === "bounced", 30_000);
      expect(await usdcOf(co.wallet)).toBe(5_000_000n);
      // The bounce closed the burner's account, its rent going to the refund address with the money;
      // the relayer paid the setup's fee (two signatures) and the bounce's (one), nothing else.
      expect(await sol.getAccountInfo(account)).toBeNull();
      expect((await lamportsOf(co.wallet)) - walletBefore).toBe(rent);
      expect(relayerBefore - (await lamportsOf(relayer))).toBe(15_000n);
      const [refund] = (bounced as unknown as { refunds: Array<Record<string, unknown>> }).refunds;
      expect(refund).toMatchObject({
        kind: "bounce",
        to: co.wallet.toBase58(),
        token: mint.toBase58(),
        status: "confirmed",
      });
      const landed = await sol.getTransaction(refund?.tx_hash as string, { commitment: "confirmed" });
      expect(landed?.meta?.err).toBeNull();

      const key = `${co.id}:payment.bounced`;
      const delivery = await waitFor(
        "payment.bounced",
        async () => receiver.requests.find((r) => r.headers["idempotency-key"] === key),
        30_000,
      );
      const body = await verifyWebhook({
        payload: delivery.body,
        header: String(delivery.headers["service-signature"]),
        secret: co.secret,
      });
      expect(body).toMatchObject({ session_id: co.id, event_type: "payment.bounced", flow: "checkout" });
    },
    T,
  );

  it(
    "money after the bounce: the relayer sends nothing (no longer delegate); the payer takes it back with solana-refund, once, its fee paid by the relayer",
    async () => {
      await pay(co.burner.publicKey, 2_000_000n);
      // The session asks for a bounce again; the executor finds the new account without a delegate.
      const refused = await sessionUntil(
        client(),
        co.id,
        (s) => {
          const second = (s as unknown as { refunds: Array<{ status: string }> }).refunds[1];
          return second !== undefined && (second.status === "failed" || second.status === "confirmed");
        },
        30_000,
      );
      expect(refused.status).toBe("bounced");
      expect((refused as unknown as { refunds: Array<Record<string, unknown>> }).refunds[1]).toMatchObject({
        kind: "bounce",
        status: "failed",
        error_message: expect.stringMatching(/not the burner's delegate/),
      });
      expect(await usdcOf(co.burner.publicKey)).toBe(2_000_000n);

      const signed = async (amount: bigint, to = co.wallet) => {
        const tx = buildSolanaRefund({
          burner: co.burner.publicKey.toBase58(),
          feePayer: relayer.toBase58(),
          token: mint.toBase58(),
          to: to.toBase58(),
          amount,
          blockhash: await blockhash(),
        });
        tx.partialSign(co.burner);
        return tx.serialize({ requireAllSignatures: false }).toString("base64");
      };
      const relayerBefore = await lamportsOf(relayer);
      const refund = (transaction: string, to = co.wallet) =>
        api(`/sessions/${co.id}/solana-refund`, {
          body: { transaction, to: to.toBase58(), token: mint.toBase58() },
        });
      // Less than the whole balance, or another recipient than the one named: 400, nothing moves.
      const partial = await refund(await signed(1_000_000n));
      expect(partial.status, JSON.stringify(partial.body)).toBe(400);
      expect(partial.body.error).toMatch(/whole balance \(2000000\)/);
      const elsewhere = await refund(await signed(2_000_000n), payer.publicKey);
      expect(elsewhere.status).toBe(400);
      expect(await usdcOf(co.burner.publicKey)).toBe(2_000_000n);
      expect(await lamportsOf(relayer)).toBe(relayerBefore);

      const transaction = await signed(2_000_000n);
      const done = await refund(transaction);
      expect(done.status, JSON.stringify(done.body)).toBe(200);
      expect(done.body).toMatchObject({
        id: co.id,
        to: co.wallet.toBase58(),
        token: mint.toBase58(),
        amount: "2000000",
      });
      expect(await usdcOf(co.wallet)).toBe(7_000_000n);
      expect(await usdcOf(co.burner.publicKey)).toBe(0n);
      // Two signatures' fee (the relayer's and the burner's), nothing else.
      expect(relayerBefore - (await lamportsOf(relayer))).toBe(10_000n);
      const onChain = await sol.getTransaction(done.body.signature, { commitment: "confirmed" });
      expect(onChain?.meta?.err).toBeNull();
      // The same request again is answered the same; nothing is sent twice.
      expect((await refund(transaction)).body).toEqual(done.body);
      expect(await lamportsOf(relayer)).toBe(relayerBefore - 10_000n);
      // Nothing left: 409.
      const empty = await refund(await signed(1n));
      expect(empty.status).toBe(409);
      expect(empty.body.error).toMatch(/nothing to refund/);
      const s = await getSession(client(), { id: co.id });
      expect(s.status).toBe("bounced");
      expect((s as unknown as { refunds: Array<Record<string, unknown>> }).refunds[2]).toMatchObject({
        kind: "solana_refund",
        status: "confirmed",
        amount: "2000000",
        tx_hash: done.body.signature,
      });
    },
    T,
  );
});
