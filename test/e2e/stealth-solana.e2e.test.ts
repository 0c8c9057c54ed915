// Flow D on Solana on the local stack (docs/STEALTH.md): a merchant with Solana stealth keys, a
// stealth checkout paid in USDC on the local Solana node and swept to the derived address (the sweep
// opening its USDC account), the Memo announcement on chain and in GET /sessions/:id/stealth, the
// recipient's scanner finding exactly that payment with the view key, and the withdrawal through
// prepare + withdraw by the recipient's client library (the spending scalar from its seeds,
// raw-scalar EdDSA) to a fresh wallet, the relayer paying the fee. A withdrawal changed to pay another
// destination, not signed by the stealth key, or for an address the service never derived (a
// stranger's funded keypair) is refused and moves nothing.

import { randomBytes, randomUUID } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { type Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSolanaAnnouncer } from "../../src/chains/solana/announce.ts";
import { buildStealthWithdrawal } from "../../src/chains/solana/stealth-withdraw.ts";
import { tokenAccountOrNull } from "../../src/chains/solana/token-accounts.ts";
import {
  commitSolanaSweep,
  createApiClient,
  registerSolanaBurner,
  type SolanaStealthPayment,
  type SolanaSweepTerms,
  scanSolanaStealthAnnouncements,
  signSolanaSweep,
  waitForSolanaDetection,
  withdrawSolanaStealth,
} from "../../src/client/index.ts";
import { announceCommandId } from "../../src/domain/stealth.ts";
import {
  signWithScalar,
  solanaStealthPublicKeys,
  solanaStealthSpendingScalar,
} from "../../src/stealth/ed25519.ts";
import { formatMetaAddress, type Hex } from "../../src/stealth/erc5564.ts";
import { type JsonRequest, requestJson } from "../support/http.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";
import { keypairOf, solanaChainIdOf, stackSolanaOf } from "../support/solana-node.ts";

const T = 120_000;
const OPERATOR_SECRET = `operator-${"d".repeat(40)}`;
const AMOUNT = 2_500_000n; // 2.5 USDC
const FEE_BPS = 80;
const DELIVERED = AMOUNT - (AMOUNT * BigInt(FEE_BPS)) / 10_000n;

let svc: TestService;
let sol: Connection;
let chainId: number;
let mint: PublicKey;
let payer: Keypair;
let relayer: PublicKey;

beforeAll(async () => {
  svc = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
  ({ sol, mint, payer, relayer } = stackSolanaOf(svc));
  chainId = solanaChainIdOf(svc);
}, 240_000);
afterAll(async () => {
  await svc?.stop();
});

const api = (path: string, init: JsonRequest = {}) => requestJson(svc.url, path, init);
const client = () => createApiClient({ baseUrl: svc.url });

/** null: the owner has no USDC account (the withdrawal closes the stealth address's). */
const usdcOf = async (owner: PublicKey): Promise<bigint | null> =>
  (await tokenAccountOrNull(sol, getAssociatedTokenAddressSync(mint, owner, true)))?.amount ?? null;

/** Pays `amount` of the test wallet's USDC to `owner`'s associated account, opening it if needed. */
async function payUsdc(owner: PublicKey, amount: bigint) {
  const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
  const to = await getOrCreateAssociatedTokenAccount(sol, payer, mint, owner);
  await transfer(sol, payer, from.address, to.address, payer, amount);
}

/** A recipient's Solana seeds and a throwaway ERC-5564 meta-address (PUT /v1/stealth-meta requires one). */
function recipientKeys() {
  const seeds = { spendSeed: randomBytes(32), viewSeed: randomBytes(32) };
  const pub = () =>
    `0x${bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true))}` as Hex;
  return {
    seeds,
    sol: solanaStealthPublicKeys(seeds),
    meta: formatMetaAddress({ spendPubkey: pub(), viewPubkey: pub() }),
  };
}

describe("Flow D to a Solana stealth address", () => {
  const keys = recipientKeys();
  const flow = { id: "", stealth: "", payment: null as unknown as SolanaStealthPayment };

  it(
    "a stealth checkout paid in USDC is swept to the derived address and announced by a memo the recipient's scanner finds",
    async () => {
      const m = await api("/v1/operator/merchants", {
        key: OPERATOR_SECRET,
        body: { name: "Solana Stealth Shop", email: `sol-stealth-${randomUUID()}@merchant.test` },
      });
      expect(m.status).toBe(201);
      const [sk, pk] = [m.body.secret_key as string, m.body.publishable_key as string];
      const meta = {
        meta_address: keys.meta,
        sol_spend_pubkey: keys.sol.spendPubkey,
        sol_view_pubkey: keys.sol.viewPubkey,
      };
      expect((await api("/v1/stealth-meta", { method: "PUT", key: sk, body: meta })).status).toBe(200);

      const created = await api("/v1/payment_sessions", {
        key: sk,
        body: { amount: AMOUNT.toString(), source_chain_id: chainId, stealth: true },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const checkout = { publishableKey: pk, clientSecret: created.body.client_secret as string };
      const guard = { authorization: `Bearer ${pk}`, "x-client-secret": checkout.clientSecret };
      flow.id = created.body.id;
      const announced = await api(`/sessions/${flow.id}/stealth`, { headers: guard });
      const solAnnouncement = announced.body.announcements.find(
        (a: { scheme: string }) => a.scheme === "solana-ed25519-1",
      );
      expect(solAnnouncement).toMatchObject({ chain_id: chainId, tx: null });
      flow.stealth = solAnnouncement.stealth_address;
      const terms = created.body.sweep as SolanaSweepTerms;
      // The checkout pays the stealth address, whose USDC account the sweep opens.
      expect(terms).toMatchObject({
        sweep_to: flow.stealth,
        open_sweep_to: true,
        fee_payer: relayer.toBase58(),
      });
      expect(created.body.session).toMatchObject({ dest_address: flow.stealth, dest_chain_id: chainId });
      expect(await usdcOf(new PublicKey(flow.stealth))).toBeNull();

      const burner = Keypair.generate();
      await registerSolanaBurner(client(), { id: flow.id, burner, checkout });
      await payUsdc(burner.publicKey, AMOUNT);
      const detected = await waitForSolanaDetection(client(), { id: flow.id, timeout: 20_000, checkout });
      const { blockhash } = (await api("/solana/blockhash")).body;
      const { transaction } = signSolanaSweep({ burner, session: detected, terms, blockhash });
      await commitSolanaSweep(client(), { id: flow.id, transaction, checkout });
      const swept = await sessionUntil(
        client(),
        flow.id,
        (s) => s.status === "swept" || s.status === "failed",
        30_000,
      );
      expect(swept).toMatchObject({ status: "swept", outcome: "succeeded" });
      expect(await usdcOf(new PublicKey(flow.stealth))).toBe(DELIVERED);

      // The announcement: a memo transaction of the relayer, recorded once on the session.
      const deadline = Date.now() + 20_000;
      let tx: string | null = null;
      while (tx === null && Date.now() < deadline) {
        const r = await api(`/sessions/${flow.id}/stealth`, { headers: guard });
        tx = r.body.announcements.find((a: { scheme: string }) => a.scheme === "solana-ed25519-1").tx;
        if (tx === null) await new Promise((resolve) => setTimeout(resolve, 300));
      }
      expect(tx).toEqual(expect.any(String));
      const onChain = await sol.getTransaction(tx as string, {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
      });
      expect(onChain?.meta?.err).toBeNull();
      expect(onChain?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(relayer.toBase58());
      expect(onChain?.meta?.logMessages?.join("\n")).toContain(`stealth_address=${flow.stealth}`);
      // Idempotent by command id: the executor's announcer run again for this command (a retry, or a
      // new process after a crash) finds its memo on chain by the marker and sends nothing.
      const stack = svc.stack.solana;
      if (!stack) throw new Error("the local stack has no Solana node");
      const announce = createSolanaAnnouncer({
        chainId,
        connection: sol,
        relayer: keypairOf(stack.relayerKey),
        signal: new AbortController().signal,
      });
      const lamports = await sol.getBalance(relayer, "confirmed");
      const again = await announce(
        {
          type: "Announce",
          scheme: solAnnouncement.scheme,
          stealthAddress: flow.stealth,
          ephemeralPubkey: solAnnouncement.ephemeral_pubkey,
          viewTag: solAnnouncement.view_tag,
        },
        { key: `${announceCommandId(flow.id)}/announce`, bump: false, onSubmitted: async () => {} },
      );
      expect(again.txHash).toBe(tx);
      expect(await sol.getBalance(relayer, "confirmed")).toBe(lamports);

      // The recipient's scanner, from the chain alone, with the view key: exactly this payment.
      const newest = { announcer: relayer.toBase58(), maxTransactions: 50 };
      const found = await scanSolanaStealthAnnouncements(sol, {
        viewSeed: keys.seeds.viewSeed,
        spendPubkey: keys.sol.spendPubkey,
        ...newest,
      });
      expect(found).toEqual([
        expect.objectContaining({
          stealthAddress: flow.stealth,
          ephemeralPubkey: solAnnouncement.ephemeral_pubkey,
          viewTag: solAnnouncement.view_tag,
          signature: tx,
        }),
      ]);
      flow.payment = found[0] as SolanaStealthPayment;
      const stranger = recipientKeys();
      expect(
        await scanSolanaStealthAnnouncements(sol, {
          viewSeed: stranger.seeds.viewSeed,
          spendPubkey: stranger.sol.spendPubkey,
          ...newest,
        }),
      ).toEqual([]);
    },
    T,
  );

  it(
    "withdrawals of another destination, another key, no signature or a stranger's own address are refused, a copy sent by a stranger fails; the found payment is withdrawn",
    async () => {
      expect(flow.payment).not.toBeNull();
      const stealth = new PublicKey(flow.stealth);
      const destination = Keypair.generate().publicKey;
      const thief = Keypair.generate().publicKey;
      const body = { stealth_address: flow.stealth, destination: destination.toBase58() };
      const relayerLamports = await sol.getBalance(relayer, "confirmed");

      // A stranger's keypair holding USDC: the service never derived it, so nothing is built or sent.
      const strangerKey = Keypair.generate();
      await payUsdc(strangerKey.publicKey, 1_000_000n);
      const ownAddress = { stealth_address: strangerKey.publicKey.toBase58(), destination: thief.toBase58() };
      const prepareOwn = await api("/stealth/withdraw/solana/prepare", { body: ownAddress });
      expect(prepareOwn.status).toBe(404);
      expect(prepareOwn.body.error).toMatch(/not the stealth address of a paid Flow D session/);
      const sendOwn = await api("/stealth/withdraw/solana", { body: { ...ownAddress, transaction: "AA==" } });
      expect(sendOwn.status).toBe(404);

      const prepared = await api("/stealth/withdraw/solana/prepare", { body });
      expect(prepared.status).toBe(200);
      expect(prepared.body.amount).toBe(String(DELIVERED));
      const p = solanaStealthSpendingScalar(flow.payment.ephemeralPubkey, keys.seeds);
      const signed = (tx: Transaction, scalar: bigint) => {
        tx.addSignature(stealth, Buffer.from(signWithScalar(scalar, tx.serializeMessage())));
        return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
      };
      const thiefs = buildStealthWithdrawal({
        stealthAddress: flow.stealth,
        destination: thief.toBase58(),
        feePayer: prepared.body.fee_payer,
        mint: prepared.body.token,
        amount: DELIVERED,
        blockhash: prepared.body.blockhash,
      });
      const preparedTx = () => Transaction.from(Buffer.from(prepared.body.transaction, "base64"));
      const attempts = [
        // Signed by the stealth key for the thief, sent as the destination's request.
        { ...body, transaction: signed(thiefs, p) },
        // The prepared transaction, signed by another key.
        { ...body, transaction: signed(preparedTx(), p + 1n) },
        // Unsigned.
        { ...body, transaction: prepared.body.transaction },
      ];
      for (const attempt of attempts) {
        const res = await api("/stealth/withdraw/solana", { body: attempt });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/not the withdrawal prepared|signature is missing or invalid/);
      }
      // A copy of the stealth-signed withdrawal earns a stranger nothing: sent as it is, the relayer's
      // signature as fee payer is missing; with the stranger as fee payer, the stealth signature no longer holds.
      const copy = signed(preparedTx(), p);
      await expect(sol.sendRawTransaction(Buffer.from(copy, "base64"))).rejects.toThrow(/signature/i);
      const rewritten = Transaction.from(Buffer.from(copy, "base64"));
      const stealthSignature = rewritten.signatures.find((s) => s.publicKey.equals(stealth))?.signature;
      rewritten.feePayer = strangerKey.publicKey;
      rewritten.partialSign(strangerKey);
      if (stealthSignature) rewritten.addSignature(stealth, stealthSignature);
      await expect(
        sol.sendRawTransaction(rewritten.serialize({ requireAllSignatures: false, verifySignatures: false })),
      ).rejects.toThrow(/signature/i);
      expect(await usdcOf(stealth)).toBe(DELIVERED);
      expect(await usdcOf(thief)).toBeNull();
      expect(await usdcOf(strangerKey.publicKey)).toBe(1_000_000n);
      expect(await sol.getBalance(relayer, "confirmed")).toBe(relayerLamports);

      // The recipient's library, from what its scanner found: the whole balance to a fresh wallet.
      const sent = await withdrawSolanaStealth(client(), {
        stealthAddress: flow.payment.stealthAddress,
        ephemeralPubkey: flow.payment.ephemeralPubkey,
        ...keys.seeds,
        destination: destination.toBase58(),
      });
      expect(sent).toMatchObject({ amount: String(DELIVERED), destination: destination.toBase58() });
      expect(await usdcOf(destination)).toBe(DELIVERED);
      // The stealth account is closed; the relayer paid the fee and the destination's account rent,
      // and got the stealth account's rent back (both accounts 165 bytes): one fee of two signatures.
      expect(await usdcOf(stealth)).toBeNull();
      const tx = await sol.getTransaction(sent.signature, {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
      });
      expect(tx?.meta?.err).toBeNull();
      expect(relayerLamports - (await sol.getBalance(relayer, "confirmed"))).toBe(tx?.meta?.fee);
      // Nothing is left to withdraw.
      const again = await api("/stealth/withdraw/solana/prepare", { body });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/holds no USDC/);
    },
    T,
  );
});
