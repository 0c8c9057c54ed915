// Solana-to-Solana settlement on the local stack (docs/SOLANA.md, "Merchant checkout on Solana"): a
// merchant's Solana USDC checkout swept by its payer with the platform fee and the merchant's app fee
// to app_fee_recipient_sol, a sweep signed for another destination refused with nothing moved, and a
// SOL deposit swept in lamports, and a burner named at creation with its key's proof (never the
// service's own addresses). One service; every balance is read on the local Solana node.
import { randomUUID } from "node:crypto";
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import {
  type Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSolanaSweep, NATIVE_MINT, type SweepLeg } from "../../src/chains/solana/sweep.ts";
import {
  commitSolanaSweep,
  createApiClient,
  createSolanaSession,
  type DetectedSolanaSession,
  registerSolanaBurner,
  type Session,
  type SolanaSweepTerms,
  signSolanaSweep,
  waitForSolanaDetection,
} from "../../src/client/index.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";
import { burnerRegistration, solanaChainIdOf, stackSolanaOf } from "../support/solana-node.ts";

const T = 60_000;
const OPERATOR_SECRET = `operator-${"s".repeat(40)}`;
const FEE_BPS = 80;
const APP_FEE_BPS = 150;
const EVM_APP_FEE_SINK = "0x00000000000000000000000000000000000000fe";

let svc: TestService;
let sol: Connection;
let chainId: number;
let mint: PublicKey;
let payer: Keypair;
let relayer: PublicKey;
let vault: PublicKey;

beforeAll(async () => {
  svc = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
  ({ sol, mint, payer, relayer, vault } = stackSolanaOf(svc));
  chainId = solanaChainIdOf(svc);
}, 240_000);
afterAll(async () => {
  await svc?.stop();
});

const client = () => createApiClient({ baseUrl: svc.url });

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

const usdcOf = async (owner: PublicKey): Promise<bigint> => {
  const info = await sol
    .getTokenAccountBalance(getAssociatedTokenAddressSync(mint, owner, true))
    .catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
};
/** A fresh wallet with its USDC account (the sweep pays associated token accounts that exist). */
async function walletWithUsdcAccount(): Promise<PublicKey> {
  const owner = Keypair.generate().publicKey;
  await getOrCreateAssociatedTokenAccount(sol, payer, mint, owner);
  return owner;
}

const blockhash = async () => ((await api("/solana/blockhash")).body as { blockhash: string }).blockhash;

/** A sweep of the legs a test chooses (a payer's client gone wrong), signed with the burner key, base64. */
async function signedSweep(burner: Keypair, feePayer: string, token: string, legs: SweepLeg[]) {
  const tx = buildSolanaSweep({
    burner: burner.publicKey.toBase58(),
    feePayer,
    token,
    legs,
    blockhash: await blockhash(),
  });
  tx.partialSign(burner);
  return tx.serialize({ requireAllSignatures: false }).toString("base64");
}

/** Commits until answered 200: the gateway answers not_detected (409, retryable) until the read model shows the deposit. */
async function commit(id: string, transaction: string, headers: Record<string, string> = {}) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await api(`/sessions/${id}/commit`, { body: { transaction }, headers });
    if (r.status === 200) return r.body;
    const notYet = r.status === 409 && /no deposit has been detected/.test(r.body?.error ?? "");
    if (!notYet || Date.now() > deadline) throw new Error(`commit refused: ${JSON.stringify(r)}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

const settled = (id: string) =>
  sessionUntil(client(), id, (s) => s.status === "swept" || s.status === "failed", 30_000);

describe("a merchant's Solana USDC checkout settled to a Solana destination", () => {
  const amount = 10_000_000n; // 10 USDC
  const fee = (amount * BigInt(FEE_BPS)) / 10_000n;
  const appFee = (amount * BigInt(APP_FEE_BPS)) / 10_000n;
  const m = { sk: "", pk: "" };
  const co = {
    id: "",
    cs: "",
    burner: Keypair.generate(),
    dest: PublicKey.default,
    sink: PublicKey.default,
    terms: null as unknown as SolanaSweepTerms,
    detected: null as unknown as DetectedSolanaSession,
  };
  const guard = () => ({ ...bearer(m.pk), "x-client-secret": co.cs });

  it(
    "the merchant sets its Solana app fee sink beside the EVM one; bad sinks and pins are 400, a fee with no Solana sink refuses the checkout (409)",
    async () => {
      const created = await api("/v1/operator/merchants", {
        headers: bearer(OPERATOR_SECRET),
        body: { name: "Solana Shop", email: `sol-${randomUUID()}@merchant.test` },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      Object.assign(m, { sk: created.body.secret_key, pk: created.body.publishable_key });
      [co.dest, co.sink] = await Promise.all([walletWithUsdcAccount(), walletWithUsdcAccount()]);
      const sk = bearer(m.sk);

      const pin = await api("/v1/destinations", {
        method: "PUT",
        headers: sk,
        body: { source_chain_id: chainId, dest_address: co.dest.toBase58(), dest_chain_id: chainId },
      });
      expect(pin.status, JSON.stringify(pin.body)).toBe(200);
      expect(pin.body.data).toContainEqual({
        source_chain_id: chainId,
        dest_address: co.dest.toBase58(),
        dest_chain_id: chainId,
      });
      // A Solana address cannot be reached from an EVM deposit, and must be base58 of 32 bytes.
      for (const body of [
        { source_chain_id: 31337, dest_address: co.dest.toBase58(), dest_chain_id: chainId },
        {
          source_chain_id: chainId,
          dest_address: "0x00000000000000000000000000000000000000d0",
          dest_chain_id: chainId,
        },
      ]) {
        const bad = await api("/v1/destinations", { method: "PUT", headers: sk, body });
        expect(bad.status, JSON.stringify(body)).toBe(400);
      }

      // The app fee with only an EVM sink: a Solana checkout has nowhere to pay it, so none is created.
      const evmOnly = { app_fee_bps: APP_FEE_BPS, app_fee_recipient: EVM_APP_FEE_SINK };
      const setEvm = await api("/v1/app_fee", { method: "PUT", headers: sk, body: evmOnly });
      expect(setEvm.body).toEqual({ ...evmOnly, app_fee_recipient_sol: null });
      const refused = await api("/v1/payment_sessions", {
        headers: sk,
        body: { amount: amount.toString(), source_chain_id: chainId },
      });
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.error).toMatch(/app_fee_recipient_sol/);

      for (const sink of [
        "not-base58!",
        "0x00000000000000000000000000000000000000fe",
        "1111111111111111111111111111111",
      ]) {
        const bad = await api("/v1/app_fee", {
          method: "PUT",
          headers: sk,
          body: { ...evmOnly, app_fee_recipient_sol: sink },
        });
        expect(bad.status, sink).toBe(400);
        expect(bad.body.error, sink).toMatch(/app_fee_recipient_sol/);
      }
      const withSol = { ...evmOnly, app_fee_recipient_sol: co.sink.toBase58() };
      const set = await api("/v1/app_fee", { method: "PUT", headers: sk, body: withSol });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(set.body).toEqual(withSol);
      expect((await api("/v1/app_fee", { headers: sk })).body).toEqual(withSol);
      // Only a configured Solana chain makes a Solana checkout.
      const evmChain = await api("/v1/payment_sessions", {
        headers: sk,
        body: { amount: amount.toString(), source_chain_id: 31337 },
      });
      expect(evmChain.status).toBe(400);
    },
    T,
  );

  it(
    "the checkout carries the merchant's Solana sink and the sweep terms; its burner is registered with pk_ + cs_ and paid",
    async () => {
      const created = await api("/v1/payment_sessions", {
        headers: bearer(m.sk),
        body: { amount: amount.toString(), source_chain_id: chainId },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      Object.assign(co, { id: created.body.id, cs: created.body.client_secret, terms: created.body.sweep });
      expect(created.body.sweep).toEqual({
        chain_id: chainId,
        usdc_mint: mint.toBase58(),
        fee_payer: relayer.toBase58(),
        fee_bps: FEE_BPS,
        app_fee_bps: APP_FEE_BPS,
        app_fee_recipient_sol: co.sink.toBase58(),
        sweep_to: co.dest.toBase58(),
        open_sweep_to: false,
      });
      const sessionFields = {
        app_fee_bps: APP_FEE_BPS,
        app_fee_recipient: EVM_APP_FEE_SINK,
        app_fee_recipient_sol: co.sink.toBase58(),
        dest_address: co.dest.toBase58(),
        dest_chain_id: chainId,
        expected_amount: amount.toString(),
      };
      expect(created.body.session).toMatchObject(sessionFields);
      expect(
        (await api(`/v1/payment_sessions/${co.id}`, { headers: bearer(m.sk) })).body.session,
      ).toMatchObject(sessionFields);
      expect((await api(`/sessions/${co.id}`)).body).toMatchObject(sessionFields);

      // A checkout's burner slot is the widget's: its key and client secret, as for /register.
      const body = burnerRegistration(co.burner, co.id);
      expect((await api(`/sessions/${co.id}/solana-burner`, { body })).status).toBe(401);
      // The payer's client library with the widget's credentials.
      const registered = await registerSolanaBurner(client(), {
        id: co.id,
        burner: co.burner,
        checkout: { publishableKey: m.pk, clientSecret: co.cs },
      });
      expect(registered).toMatchObject({ id: co.id, status: "pending" });

      const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
      const to = await getOrCreateAssociatedTokenAccount(sol, payer, mint, co.burner.publicKey);
      await transfer(sol, payer, from.address, to.address, payer, amount);
      co.detected = await waitForSolanaDetection(client(), {
        id: co.id,
        timeout: 20_000,
        checkout: { publishableKey: m.pk, clientSecret: co.cs },
      });
      expect(co.detected).toMatchObject({
        detected_amount: amount.toString(),
        detected_token: mint.toBase58(),
      });
    },
    T,
  );

  it(
    "a sweep signed for another destination, or keeping the app fee from its sink, is refused 400 with nothing moved",
    async () => {
      const thief = await walletWithUsdcAccount();
      const before = {
        burner: await usdcOf(co.burner.publicKey),
        dest: await usdcOf(co.dest),
        sink: await usdcOf(co.sink),
        thief: await usdcOf(thief),
      };
      expect(before.burner).toBe(amount);
      const wrong: Array<[string, SweepLeg[]]> = [
        [
          "another destination",
          [
            { to: thief.toBase58(), amount: amount - fee - appFee },
            { to: relayer.toBase58(), amount: fee },
            { to: co.sink.toBase58(), amount: appFee },
          ],
        ],
        [
          "the app fee to the destination",
          [
            { to: co.dest.toBase58(), amount: amount - fee },
            { to: relayer.toBase58(), amount: fee },
          ],
        ],
        [
          "the app fee to another sink",
          [
            { to: co.dest.toBase58(), amount: amount - fee - appFee },
            { to: relayer.toBase58(), amount: fee },
            { to: thief.toBase58(), amount: appFee },
          ],
        ],
      ];
      for (const [what, legs] of wrong) {
        const transaction = await signedSweep(co.burner, relayer.toBase58(), mint.toBase58(), legs);
        const r = await api(`/sessions/${co.id}/commit`, { body: { transaction }, headers: guard() });
        expect(r.status, what).toBe(400);
        expect(r.body.error, what).toMatch(/not the sweep this session owes/);
      }
      // The right sweep without the widget's key and client secret: 401.
      const right = await signedSweep(co.burner, relayer.toBase58(), mint.toBase58(), [
        { to: co.dest.toBase58(), amount: amount - fee - appFee },
        { to: relayer.toBase58(), amount: fee },
        { to: co.sink.toBase58(), amount: appFee },
      ]);
      expect((await api(`/sessions/${co.id}/commit`, { body: { transaction: right } })).status).toBe(401);
      // Past a few slots, nothing has moved and the session waits for its sweep.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const after = {
        burner: await usdcOf(co.burner.publicKey),
        dest: await usdcOf(co.dest),
        sink: await usdcOf(co.sink),
        thief: await usdcOf(thief),
      };
      expect(after).toEqual(before);
      expect((await api(`/sessions/${co.id}`)).body).toMatchObject({
        status: "detected",
        sweep_tx: null,
        fee_bps: null,
      });
    },
    T,
  );

  it(
    "the payer's sweep is co-signed and relayed: swept, with exact balances on the node (destination, platform fee, app fee)",
    async () => {
      const before = {
        dest: await usdcOf(co.dest),
        sink: await usdcOf(co.sink),
        relayer: await usdcOf(relayer),
      };
      // The payer's client library builds the sweep from the checkout's terms and its detected session.
      const { transaction, legs } = signSolanaSweep({
        burner: co.burner,
        session: co.detected,
        terms: co.terms,
        blockhash: await blockhash(),
        destination: { address: co.dest.toBase58(), chainId },
        maxAppFeeBps: APP_FEE_BPS,
      });
      expect(legs).toEqual([
        { to: co.dest.toBase58(), amount: amount - fee - appFee },
        { to: relayer.toBase58(), amount: fee },
        { to: co.sink.toBase58(), amount: appFee },
      ]);
      const answered = await commitSolanaSweep(client(), {
        id: co.id,
        transaction,
        checkout: { publishableKey: m.pk, clientSecret: co.cs },
      });
      expect(answered).toMatchObject({ id: co.id, fee_bps: FEE_BPS, app_fee_bps: APP_FEE_BPS });

      const swept: Session = await settled(co.id);
      expect(swept).toMatchObject({ status: "swept", outcome: "succeeded", fee_amount: fee.toString() });
      // 10 USDC: 9.77 to the destination, 0.08 platform fee to the relayer (the fee payer), 0.15 app fee.
      expect((await usdcOf(co.dest)) - before.dest).toBe(9_770_000n);
      expect((await usdcOf(co.sink)) - before.sink).toBe(150_000n);
      expect((await usdcOf(relayer)) - before.relayer).toBe(80_000n);
      expect(await usdcOf(co.burner.publicKey)).toBe(0n);
      const tx = await sol.getTransaction(swept.sweep_tx as string, { commitment: "finalized" });
      expect(tx?.meta?.err).toBeNull();
      expect(tx?.transaction.message.accountKeys[0]?.toBase58()).toBe(relayer.toBase58());
    },
    T,
  );
});

describe("a SOL deposit", () => {
  it(
    "is detected in lamports and swept to the Solana destination, the platform fee to the relayer, which pays the transaction's fee",
    async () => {
      const dest = Keypair.generate().publicKey;
      const created = await api("/sessions/solana", {
        body: { destination_address: dest.toBase58(), destination_chain: chainId },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.id as string;
      const terms = created.body.sweep as SolanaSweepTerms;
      const burner = Keypair.generate();
      expect(
        (await api(`/sessions/${id}/solana-burner`, { body: burnerRegistration(burner, id) })).status,
      ).toBe(200);

      const lamports = 50_000_000n; // 0.05 SOL
      await sendAndConfirmTransaction(
        sol,
        new Transaction().add(
          SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: burner.publicKey, lamports }),
        ),
        [payer],
      );
      const detected = await waitForSolanaDetection(client(), { id, timeout: 20_000 });
      expect(detected).toMatchObject({ detected_token: NATIVE_MINT, detected_amount: lamports.toString() });

      const fee = (lamports * BigInt(FEE_BPS)) / 10_000n;
      const { transaction, legs } = signSolanaSweep({
        burner,
        session: detected,
        terms,
        blockhash: await blockhash(),
        destination: { address: dest.toBase58(), chainId },
      });
      expect(legs).toEqual([
        { to: dest.toBase58(), amount: lamports - fee },
        { to: relayer.toBase58(), amount: fee },
      ]);
      await commit(id, transaction);
      const swept = await settled(id);
      expect(swept).toMatchObject({ status: "swept", fee_amount: fee.toString() });
      expect(BigInt(await sol.getBalance(dest))).toBe(lamports - fee);
      expect(await sol.getBalance(burner.publicKey)).toBe(0);
      // The relayer's side, read in the sweep itself: the platform fee in, two signatures' fee out.
      const tx = await sol.getTransaction(swept.sweep_tx as string, { commitment: "finalized" });
      const meta = tx?.meta;
      expect(meta?.err).toBeNull();
      expect(meta?.fee).toBe(10_000);
      expect(BigInt((meta?.postBalances[0] ?? 0) - (meta?.preBalances[0] ?? 0))).toBe(fee - 10_000n);
    },
    T,
  );
});

describe("a burner named at creation (POST /sessions/solana with burner_address)", () => {
  it(
    "is watched with its key's proof (the client signs it); without the proof, or as the vault or the relayer, it is 400 and nothing is opened",
    async () => {
      const dest = Keypair.generate().publicKey.toBase58();
      const destination = { destination_address: dest, destination_chain: chainId };
      const stranger = Keypair.generate().publicKey.toBase58();
      const refused = await api("/sessions/solana", { body: { ...destination, burner_address: stranger } });
      expect([refused.status, refused.body.error]).toEqual([400, expect.stringMatching(/burner_signature/)]);
      for (const own of [vault, relayer]) {
        const r = await api("/sessions/solana", { body: { ...destination, burner_address: own.toBase58() } });
        expect([r.status, r.body.error]).toEqual([400, expect.stringMatching(/service's own/)]);
      }

      const burner = Keypair.generate();
      const { id } = await createSolanaSession(client(), {
        destination: { address: dest, chainId },
        burner,
      });
      expect((await api(`/sessions/${id}`)).body.burner_address).toBe(burner.publicKey.toBase58());
      const lamports = 20_000_000n; // 0.02 SOL
      await sendAndConfirmTransaction(
        sol,
        new Transaction().add(
          SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: burner.publicKey, lamports }),
        ),
        [payer],
      );
      const detected = await waitForSolanaDetection(client(), { id, timeout: 20_000 });
      expect(detected).toMatchObject({ detected_token: NATIVE_MINT, detected_amount: lamports.toString() });
    },
    T,
  );
});
