import { randomUUID } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { createApiClient } from "../../src/client/api-client.ts";
import {
  deriveStealthKey,
  newBurner,
  type StealthPayment,
  scanStealthAnnouncements,
  signIntent,
  signStealthWithdrawal,
  withdrawStealth,
} from "../../src/client/index.ts";
import {
  deriveStealthAddress,
  formatMetaAddress,
  type Hex,
  newEphemeralKey,
  stealthPrivateKey,
} from "../../src/stealth/erc5564.ts";
import { waitFor } from "../support/actor-host.ts";
import { fund, tokenBalance } from "../support/delegate.ts";
import { type JsonRequest, requestJson } from "../support/http.ts";
import { merchantStack } from "../support/merchant-stack.ts";
import { sessionUntil } from "../support/session-poll.ts";

// Stealth settlement on EVM (issue 18, docs/STEALTH.md) on the real stack: a merchant registers an
// ERC-5564 meta-address, a Flow D checkout derives a fresh stealth address per session, the payer's
// Intent must pay it, and the sweep delivers there; the recipient's keys control the address.

const T = 180_000;
const OPERATOR_SECRET = `operator-${"5".repeat(40)}`;
const stack = merchantStack(OPERATOR_SECRET, T);

const api = (path: string, init: JsonRequest = {}) => requestJson(stack.service.url, path, init);

async function newMerchant() {
  const r = await api("/v1/operator/merchants", {
    key: OPERATOR_SECRET,
    body: { name: "Stealth Shop", email: `stealth-${randomUUID()}@merchant.test` },
  });
  expect(r.status).toBe(201);
  return {
    id: r.body.merchant.id as string,
    sk: r.body.secret_key as string,
    pk: r.body.publishable_key as string,
  };
}

/** The recipient's four keys; only the public halves reach the service. */
function recipientKeys() {
  const key = () => {
    const priv = secp256k1.utils.randomPrivateKey();
    return {
      priv: `0x${bytesToHex(priv)}` as Hex,
      pub: `0x${bytesToHex(secp256k1.getPublicKey(priv, true))}` as Hex,
    };
  };
  const spend = key();
  const view = key();
  return { spend, view, meta: formatMetaAddress({ spendPubkey: spend.pub, viewPubkey: view.pub }) };
}

describe("stealth meta-address and Flow D on EVM", () => {
  const keys = recipientKeys();

  it(
    "PUT /v1/stealth-meta takes two curve points and refuses anything else; GET answers what is stored",
    async () => {
      const m = await newMerchant();
      expect((await api("/v1/stealth-meta", { key: m.sk })).status).toBe(404);
      const offCurve = `0x02${"0".repeat(63)}5`;
      const bad = [
        { meta_address: `st:eth:${offCurve}${keys.view.pub.slice(2)}` },
        { meta_address: `st:eth:${keys.spend.pub}${offCurve.slice(2)}` },
        { meta_address: keys.meta.slice(0, -2) },
        { meta_address: keys.meta.replace("st:eth:", "st:sol:") },
        { meta_address: keys.meta, sol_spend_pubkey: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM" },
      ];
      for (const body of bad) {
        const r = await api("/v1/stealth-meta", { method: "PUT", key: m.sk, body });
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.body.error).toEqual(expect.any(String));
      }
      expect((await api("/v1/stealth-meta", { key: m.sk })).status).toBe(404);
      expect(
        (await api("/v1/stealth-meta", { method: "PUT", body: { meta_address: keys.meta } })).status,
      ).toBe(401);

      const put = await api("/v1/stealth-meta", {
        method: "PUT",
        key: m.sk,
        body: { meta_address: keys.meta },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const stored = {
        object: "stealth_meta",
        meta_address: keys.meta,
        sol_spend_pubkey: null,
        sol_view_pubkey: null,
      };
      expect(put.body).toEqual(stored);
      expect((await api("/v1/stealth-meta", { key: m.sk })).body).toEqual(stored);
      const other = recipientKeys();
      await api("/v1/stealth-meta", { method: "PUT", key: m.sk, body: { meta_address: other.meta } });
      expect((await api("/v1/stealth-meta", { key: m.sk })).body.meta_address).toBe(other.meta);
    },
    T,
  );

  it(
    "a Flow D session of a merchant with no meta-address is refused (409) and none is created",
    async () => {
      const m = await newMerchant();
      const r = await api("/v1/payment_sessions", { key: m.sk, body: { amount: "1000000", stealth: true } });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatch(/stealth-meta/);
    },
    T,
  );

  it(
    "a Flow D checkout pays a fresh stealth address per session, only an Intent to it commits, it is announced once swept, and the recipient finds it on chain with its view key and spends with the derived key",
    async () => {
      const { A } = stack;
      const startBlock = await A.client.getBlockNumber();
      const m = await newMerchant();
      await api("/v1/stealth-meta", { method: "PUT", key: m.sk, body: { meta_address: keys.meta } });
      const create = async () => {
        const r = await api("/v1/payment_sessions", {
          key: m.sk,
          body: { amount: "3000000", stealth: true },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        return r.body as { id: string; client_secret: string };
      };
      const [s, second] = [await create(), await create()];
      const headers = { authorization: `Bearer ${m.pk}`, "x-client-secret": s.client_secret };
      expect((await api(`/sessions/${s.id}/stealth`)).status).toBe(401);
      const announced = await api(`/sessions/${s.id}/stealth`, { headers });
      expect(announced.status, JSON.stringify(announced.body)).toBe(200);
      const [ours, ...others] = announced.body.announcements;
      expect(others).toEqual([]);
      // No pin: the stealth address is paid on the chain the deposit arrives on; not announced yet.
      expect(ours).toMatchObject({
        scheme: "erc5564-1",
        view_tag: expect.any(Number),
        chain_id: null,
        tx: null,
      });
      const secondOnes = await api(`/sessions/${second.id}/stealth`, {
        headers: { ...headers, "x-client-secret": second.client_secret },
      });
      expect(secondOnes.body.announcements[0].stealth_address).not.toBe(ours.stealth_address);
      // The recipient's spending key for this address, from the announcement and its own keys alone.
      const spendingKey = stealthPrivateKey(ours.ephemeral_pubkey, {
        viewPrivateKey: keys.view.priv,
        spendPrivateKey: keys.spend.priv,
      });
      expect(privateKeyToAddress(spendingKey).toLowerCase()).toBe(ours.stealth_address);

      const burner = await newBurner(A.chain);
      const registered = await api(`/sessions/${s.id}/register`, {
        headers,
        body: { burner_address: burner.address, eip7702_auth: burner.eip7702Auth },
      });
      expect(registered.status).toBe(200);
      await fund(A, burner.address, A.chain.usdc, 3_000_000n);
      const client = createApiClient({ baseUrl: stack.service.url });
      const session = await sessionUntil(client, s.id, (x) => x.status === "detected");
      expect(session).toMatchObject({ dest_address: ours.stealth_address, dest_chain_id: A.chain.chainId });
      const commitBody = ({ intent, chainId, signature }: Awaited<ReturnType<typeof signIntent>>) => ({
        burner: burner.address.toLowerCase(),
        eip7702_auth: burner.eip7702Auth,
        intent,
        intent_sigs: { [String(chainId)]: signature },
      });
      // An Intent signed for any other address is refused against the derived destination.
      const elsewhere = await signIntent({
        signer: burner.account,
        session: { ...session, dest_address: burner.address.toLowerCase() },
        quote: null,
      });
      const mismatch = await api(`/sessions/${s.id}/commit`, { headers, body: commitBody(elsewhere) });
      expect(mismatch.status).toBe(409);
      const signed = await signIntent({ signer: burner.account, session, quote: null });
      const committed = await api(`/sessions/${s.id}/commit`, { headers, body: commitBody(signed) });
      expect(committed.status, JSON.stringify(committed.body)).toBe(200);

      const settled = await sessionUntil(
        client,
        s.id,
        (x) => x.status === "swept" || x.status === "failed",
        90_000,
      );
      expect(settled).toMatchObject({ status: "swept", outcome: "succeeded" });
      expect(await tokenBalance(A, ours.stealth_address)).toBe(BigInt(settled.settled_amount ?? -1));

      // Swept: the session is announced once, on the chain the money is on.
      let final: { tx: string | null; chain_id: number | null } = { tx: null, chain_id: null };
      await waitFor(
        "the announcement to be on chain",
        async () => {
          final = (await api(`/sessions/${s.id}/stealth`, { headers })).body.announcements[0];
          return final.tx !== null ? true : undefined;
        },
        30_000,
      );
      expect(final).toMatchObject({ ...ours, chain_id: A.chain.chainId, tx: expect.stringMatching(/^0x/) });
      // The recipient finds it from the chain alone with its view key, derives the spending key, and
      // no other session (the unpaid second one) and no other recipient's keys find anything.
      const scan = (view: Hex, spend: Hex) =>
        scanStealthAnnouncements(A.client, {
          viewPrivateKey: view,
          spendPublicKey: spend,
          fromBlock: startBlock,
        });
      const found = await scan(keys.view.priv, keys.spend.pub);
      expect(found).toEqual([
        {
          stealthAddress: ours.stealth_address,
          ephemeralPubkey: ours.ephemeral_pubkey,
          viewTag: ours.view_tag,
          txHash: final.tx,
          blockNumber: expect.any(BigInt),
        },
      ]);
      const stranger = recipientKeys();
      expect(await scan(stranger.view.priv, keys.spend.pub)).toEqual([]);
      const derived = deriveStealthKey({
        ...(found[0] as StealthPayment),
        viewPrivateKey: keys.view.priv,
        spendPrivateKey: keys.spend.priv,
      });
      expect(derived).toEqual({ privateKey: spendingKey, address: ours.stealth_address });
    },
    T,
  );
});

describe("gasless withdrawal from an EVM stealth address (POST /stealth/withdraw)", () => {
  const USDC_25 = 25_000_000n;
  const FEE = 2_000_000n; // 2 USDC: above the gas a withdrawal costs at the local price, below STEALTH_WITHDRAW_MAX_FEE

  /** A stealth address of a fresh recipient, funded with USDC and no ETH, and its spending key. */
  async function fundedStealth(amount = USDC_25) {
    const keys = recipientKeys();
    const { stealthAddress, ephemeralPubkey } = deriveStealthAddress(
      { spendPubkey: keys.spend.pub, viewPubkey: keys.view.pub },
      newEphemeralKey(),
    );
    const spendingKey = stealthPrivateKey(ephemeralPubkey, {
      viewPrivateKey: keys.view.priv,
      spendPrivateKey: keys.spend.priv,
    });
    const account = privateKeyToAccount(spendingKey);
    expect(account.address.toLowerCase()).toBe(stealthAddress);
    await fund(stack.A, account.address, stack.A.chain.usdc, amount);
    expect(await stack.A.client.getBalance({ address: account.address })).toBe(0n);
    return account;
  }
  const sign = (stealth: ReturnType<typeof privateKeyToAccount>, destination: Address, fee = FEE) => {
    const { chain } = stack.A;
    if (!chain.stealthRelay) throw new Error("the stack file names no StealthRelay");
    return signStealthWithdrawal({
      signer: stealth,
      chainId: chain.chainId,
      usdc: chain.usdc,
      relay: chain.stealthRelay,
      value: USDC_25,
      destination,
      fee,
    });
  };
  const balances = async (...owners: Address[]) => Promise.all(owners.map((o) => tokenBalance(stack.A, o)));

  it(
    "moves the balance minus the fee to a fresh address and the fee to the relayer; the stealth address ends at 0; a replay is refused",
    async () => {
      const stealth = await fundedStealth();
      const fresh = privateKeyToAddress(generatePrivateKey());
      const relayer = stack.A.chain.relayer.address;
      const [relayerBefore] = await balances(relayer);
      const body = await sign(stealth, fresh);
      const client = createApiClient({ baseUrl: stack.service.url });
      const answer = await withdrawStealth(client, { withdrawal: body });
      expect(answer).toEqual({
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        destination: fresh.toLowerCase(),
        amount: String(USDC_25 - FEE),
        fee: String(FEE),
      });
      const receipt = await stack.A.client.getTransactionReceipt({ hash: answer.tx_hash as Hex });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(relayer.toLowerCase());
      const [stealthAfter, freshAfter, relayerAfter] = await balances(stealth.address, fresh, relayer);
      expect(stealthAfter).toBe(0n);
      expect(freshAfter).toBe(USDC_25 - FEE);
      expect((relayerAfter ?? 0n) - (relayerBefore ?? 0n)).toBe(FEE);

      const replay = await api("/stealth/withdraw", { body });
      expect(replay.status).toBe(409);
      expect(replay.body.error).toMatch(/used already/);
    },
    T,
  );

  it(
    "refuses a withdrawal sent for another destination, with a higher fee or a fee above the bound, and nothing moves",
    async () => {
      const stealth = await fundedStealth();
      const fresh = privateKeyToAddress(generatePrivateKey());
      const thief = privateKeyToAddress(generatePrivateKey());
      const body = await sign(stealth, fresh);
      const nonce = await stack.A.client.getTransactionCount({ address: stack.A.chain.relayer.address });

      const elsewhere = await api("/stealth/withdraw", { body: { ...body, destination: thief } });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.error).toMatch(/withdraw_signature/);
      const greedy = await api("/stealth/withdraw", { body: { ...body, fee: String(FEE + 1n) } });
      expect(greedy.status).toBe(400);
      expect(greedy.body.error).toMatch(/withdraw_signature/);
      // Signed by the stealth key, but above what the service lets a withdrawal pay (STEALTH_WITHDRAW_MAX_FEE).
      const aboveBound = await api("/stealth/withdraw", { body: await sign(stealth, fresh, 6_000_000n) });
      expect(aboveBound.status).toBe(400);
      expect(aboveBound.body.error).toMatch(/at most 5000000/);
      const tooLow = await api("/stealth/withdraw", { body: await sign(stealth, fresh, 1n) });
      expect(tooLow.status).toBe(400);
      expect(tooLow.body.error).toMatch(/gas/);

      expect(await balances(stealth.address, fresh, thief)).toEqual([USDC_25, 0n, 0n]);
      // The relayer sent nothing for any of them.
      expect(await stack.A.client.getTransactionCount({ address: stack.A.chain.relayer.address })).toBe(
        nonce,
      );
    },
    T,
  );
});
