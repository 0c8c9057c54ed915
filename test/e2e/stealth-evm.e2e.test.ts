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
  createMerchantClient,
  createPaymentSession,
  getStealthAnnouncements,
  getStealthMeta,
  type StealthAnnouncement,
  setStealthMeta,
} from "../../src/client/merchant/index.ts";
import { formatMetaAddress, type Hex } from "../../src/stealth/erc5564.ts";
import { waitFor } from "../support/actor-host.ts";
import { fund, tokenBalance } from "../support/delegate.ts";
import { type JsonRequest, requestJson } from "../support/http.ts";
import { failure } from "../support/merchant-local.ts";
import { merchantStack } from "../support/merchant-stack.ts";
import { sessionUntil } from "../support/session-poll.ts";

// Stealth settlement on EVM (issue 18, docs/STEALTH.md) on the real stack: a merchant registers an
// ERC-5564 meta-address, a Flow D checkout derives a fresh stealth address per session, the payer's
// Intent must pay it, and the sweep delivers there; the recipient's keys control the address.

const T = 180_000;
const AMOUNT = 10_000_000n; // 10 USDC
const FEE = 2_000_000n; // 2 USDC: above the gas a withdrawal costs at the local price, below STEALTH_WITHDRAW_MAX_FEE
const OPERATOR_SECRET = `operator-${"5".repeat(40)}`;
const stack = merchantStack(OPERATOR_SECRET, T);

const api = (path: string, init: JsonRequest = {}) => requestJson(stack.service.url, path, init);

async function newMerchant() {
  const m = await stack.createMerchant("Stealth Shop");
  return { id: m.id, sk: m.secretKey, pk: m.publishableKey };
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
    "a Flow D checkout made through the merchant library pays a fresh stealth address per session, only an Intent to it commits, it is announced once swept, the recipient finds it on chain with its view key alone, and withdraws it gaslessly to a fresh address (another destination, a higher fee, a fee above the bound or below the gas, another relayer refused first, nothing moving)",
    async () => {
      const { A } = stack;
      const startBlock = await A.client.getBlockNumber();
      const m = await newMerchant();
      const merchant = createMerchantClient({ baseUrl: stack.service.url, secretKey: m.sk });
      expect(await setStealthMeta(merchant, { metaAddress: keys.meta })).toMatchObject({
        meta_address: keys.meta,
      });
      expect((await getStealthMeta(merchant)).meta_address).toBe(keys.meta);
      const create = () => createPaymentSession(merchant, { amount: String(AMOUNT), stealth: true });
      const [s, second] = [await create(), await create()];
      const headers = { authorization: `Bearer ${m.pk}`, "x-client-secret": s.client_secret };
      expect((await api(`/sessions/${s.id}/stealth`)).status).toBe(401);
      // The merchant reads them with its sk_, the widget with the pk_ and client secret: the same.
      const [ours, ...others] = await getStealthAnnouncements(merchant, { id: s.id });
      expect(others).toEqual([]);
      expect((await api(`/sessions/${s.id}/stealth`, { headers })).body.announcements).toEqual([ours]);
      const stranger = createMerchantClient({
        baseUrl: stack.service.url,
        secretKey: (await newMerchant()).sk,
      });
      expect((await failure(getStealthAnnouncements(stranger, { id: s.id }))).status).toBe(404);
      // No pin: the stealth address is paid on the chain the deposit arrives on; not announced yet.
      if (!ours) throw new Error("no announcement");
      expect(ours).toMatchObject({
        scheme: "erc5564-1",
        view_tag: expect.any(Number),
        chain_id: null,
        tx: null,
      });
      const [secondOne] = await getStealthAnnouncements(merchant, { id: second.id });
      expect(secondOne?.stealth_address).not.toBe(ours.stealth_address);

      const burner = await newBurner(A.chain);
      const registered = await api(`/sessions/${s.id}/register`, {
        headers,
        body: { burner_address: burner.address, eip7702_auth: burner.eip7702Auth },
      });
      expect(registered.status).toBe(200);
      await fund(A, burner.address, A.chain.usdc, AMOUNT);
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
      const value = BigInt(settled.settled_amount ?? -1);
      expect(await tokenBalance(A, ours.stealth_address as Address)).toBe(value);

      // Swept: the session is announced once, on the chain the money is on.
      let final: StealthAnnouncement | undefined;
      await waitFor(
        "the announcement to be on chain",
        async () => {
          [final] = await getStealthAnnouncements(merchant, { id: s.id });
          return final?.tx ? true : undefined;
        },
        30_000,
      );
      expect(final).toEqual({ ...ours, chain_id: A.chain.chainId, tx: expect.stringMatching(/^0x/) });
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
          txHash: final?.tx,
          blockNumber: expect.any(BigInt),
        },
      ]);
      expect(await scan(recipientKeys().view.priv, keys.spend.pub)).toEqual([]);
      const { privateKey, address } = deriveStealthKey({
        ...(found[0] as StealthPayment),
        viewPrivateKey: keys.view.priv,
        spendPrivateKey: keys.spend.priv,
      });
      expect(address).toBe(ours.stealth_address);

      // The gasless withdrawal (POST /stealth/withdraw), signed with the derived key: the address holds no ETH.
      const stealth = privateKeyToAccount(privateKey);
      expect(await A.client.getBalance({ address: stealth.address })).toBe(0n);
      const { stealthRelay } = A.chain;
      if (!stealthRelay) throw new Error("the stack file names no StealthRelay");
      const relayer = A.chain.relayer.address;
      const sign = (destination: Address, fee = FEE, feeTo: Address = relayer) =>
        signStealthWithdrawal({
          signer: stealth,
          chainId: A.chain.chainId,
          usdc: A.chain.usdc,
          relay: stealthRelay,
          value,
          destination,
          fee,
          relayer: feeTo,
        });
      const fresh = privateKeyToAddress(generatePrivateKey());
      const thief = privateKeyToAddress(generatePrivateKey());
      const balances = async (...owners: Address[]) => Promise.all(owners.map((o) => tokenBalance(A, o)));
      const [relayerBefore] = await balances(relayer);
      const nonce = await A.client.getTransactionCount({ address: relayer });
      const relayerEth = await A.client.getBalance({ address: relayer });
      const body = await sign(fresh);
      const refused = async (withdrawal: JsonRequest["body"], message: RegExp) => {
        const r = await api("/stealth/withdraw", { body: withdrawal });
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.error).toMatch(message);
      };
      await refused({ ...body, destination: thief }, /withdraw_signature/);
      await refused({ ...body, fee: String(FEE + 1n) }, /withdraw_signature/);
      // The fee to another relayer than the service's, signed so or rewritten: refused before any chain read,
      // since the relay accepts only the signed relayer as sender.
      // The answer names the relayer to sign for.
      const theirs = await sign(fresh, FEE, thief);
      await refused(theirs, new RegExp(`must name this service's relayer on chain \\d+, ${relayer}`, "i"));
      await refused({ ...body, relayer: thief }, /must name this service's relayer/);
      await refused({ ...theirs, relayer }, /withdraw_signature/);
      // Signed by the stealth key, but above what the service lets a withdrawal pay (STEALTH_WITHDRAW_MAX_FEE).
      await refused(await sign(fresh, 6_000_000n), /at most 5000000/);
      await refused(await sign(fresh, 1n), /gas/);
      // A withdrawal validly signed by a key of its own: not an address this service derived, so 404.
      const own = privateKeyToAccount(generatePrivateKey());
      const ownBody = await signStealthWithdrawal({
        signer: own,
        chainId: A.chain.chainId,
        usdc: A.chain.usdc,
        relay: stealthRelay,
        value,
        destination: thief,
        fee: FEE,
        relayer,
      });
      const unknown = await api("/stealth/withdraw", { body: ownBody });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatch(/not the stealth address of a paid Flow D session/);
      expect(await balances(stealth.address, fresh, thief)).toEqual([value, 0n, 0n]);
      // The relayer sent nothing for any of them, and paid nothing.
      expect(await A.client.getTransactionCount({ address: relayer })).toBe(nonce);
      expect(await A.client.getBalance({ address: relayer })).toBe(relayerEth);
      expect((await balances(relayer))[0]).toBe(relayerBefore);

      const answer = await withdrawStealth(client, { withdrawal: body });
      expect(answer).toEqual({
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        destination: fresh.toLowerCase(),
        amount: String(value - FEE),
        fee: String(FEE),
      });
      const receipt = await A.client.getTransactionReceipt({ hash: answer.tx_hash as Hex });
      expect(receipt.status).toBe("success");
      expect(receipt.from.toLowerCase()).toBe(relayer.toLowerCase());
      const [stealthAfter, freshAfter, thiefAfter, relayerAfter] = await balances(
        stealth.address,
        fresh,
        thief,
        relayer,
      );
      expect([stealthAfter, freshAfter, thiefAfter]).toEqual([0n, value - FEE, 0n]);
      expect((relayerAfter ?? 0n) - (relayerBefore ?? 0n)).toBe(FEE);
      const replay = await api("/stealth/withdraw", { body });
      expect(replay.status).toBe(409);
      expect(replay.body.error).toMatch(/used already/);
    },
    T,
  );
});
