import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import {
  commit,
  createApiClient,
  makeBurner,
  newBurner,
  type Session,
  signIntent,
  waitForStatus,
} from "../../src/client/index.ts";
import {
  createMerchantClient,
  getSettings,
  type MerchantClient,
  pinDestination,
  setSettings,
  setWebhookEndpoint,
  verifyWebhook,
} from "../../src/client/merchant/index.ts";
import { waitFor } from "../support/actor-host.ts";
import { fund, tokenBalance } from "../support/delegate.ts";
import { type Body, json } from "../support/http.ts";
import { merchantStack } from "../support/merchant-stack.ts";

// Issue 16 item 3 on the real stack. A merchant's pk_ is public: a stranger makes a P2P session of
// the merchant's (POST /sessions with Authorization: Bearer pk_) that pays the stranger's own
// address, pays it, and the merchant's endpoint receives a validly signed payment.succeeded. The
// body must say so (flow, destination, dest_pinned: false). With the merchant's
// p2p_pinned_destinations_only setting the same creation is refused and the relayer sends nothing.

const T = 180_000;
const OPERATOR_SECRET = `operator-${"s".repeat(40)}`;
const stack = merchantStack(OPERATOR_SECRET, T);

interface Shop {
  pk: string;
  merchant: MerchantClient;
  /** Where the shop's money found on chain A goes: an address on chain B. */
  pinned: Address;
  whsec: string;
}

/** A merchant (operator route), then only its library: a pin for chain A and a webhook endpoint. */
async function newShop(): Promise<Shop> {
  const created = await stack.createMerchant("Pinned Shop");
  const merchant = createMerchantClient({ baseUrl: stack.service.url, secretKey: created.secretKey });
  const pinned = makeBurner().address.toLowerCase() as Address;
  await pinDestination(merchant, {
    sourceChainId: stack.A.chain.chainId,
    destAddress: pinned,
    destChainId: stack.B.chain.chainId,
  });
  const hook = await setWebhookEndpoint(merchant, {
    url: `http://localhost:${new URL(stack.receiver.url).port}/hook`,
  });
  return { pk: created.publishableKey, merchant, pinned, whsec: hook.secret };
}

/** The stranger's POST /sessions with the shop's pk_, for a burner on chain A, paying `to` on `chainId`. */
async function strangerSession(pk: string, to: Address, chainId: number) {
  const burner = await newBurner(stack.A.chain);
  const res = await fetch(`${stack.service.url}/sessions`, {
    method: "POST",
    headers: { authorization: `Bearer ${pk}`, "content-type": "application/json" },
    body: JSON.stringify({
      burner_address: burner.address,
      eip7702_auth: burner.eip7702Auth,
      destination_address: to,
      destination_chain: chainId,
    }),
  });
  return { burner, status: res.status, body: (await json(res)) as Body };
}

/** The webhook the receiver got with this Idempotency-Key, verified with the merchant library. */
async function signedWebhook(key: string, whsec: string) {
  const got = await waitFor(
    key,
    () => stack.receiver.requests.find((r) => r.headers["idempotency-key"] === key),
    60_000,
  );
  return verifyWebhook({
    payload: got.body,
    header: String(got.headers["service-signature"]),
    secret: whsec,
  });
}

/** Transactions the relayer has sent on both chains, pending ones included. */
const relayerNonces = () =>
  Promise.all(
    [stack.A, stack.B].map((c) =>
      c.client.getTransactionCount({ address: c.relayer.account.address, blockTag: "pending" }),
    ),
  );

describe("a stranger's P2P session tagged with a merchant's pk_", () => {
  it(
    "paid to the stranger's own address: the merchant's signed payment.succeeded names the flow, the destination and dest_pinned false",
    async () => {
      const shop = await newShop();
      const mine = makeBurner().address.toLowerCase() as Address;
      const { burner, status, body } = await strangerSession(shop.pk, mine, stack.A.chain.chainId);
      expect(status, JSON.stringify(body)).toBe(200);

      const payer = createApiClient({ baseUrl: stack.service.url });
      await fund(stack.A, burner.address, stack.A.chain.usdc, 2_000_000n);
      const detected = (await waitForStatus(payer, {
        id: body.id,
        status: "detected",
        timeout: 60_000,
      })) as Session;
      const signed = await signIntent({ signer: burner.account, session: detected, quote: null });
      await commit(payer, { id: body.id, burner, signed });
      const settled = await waitForStatus(payer, { id: body.id, status: "swept", timeout: 120_000 });
      // The money went to the stranger, not the merchant.
      expect(await tokenBalance(stack.A, mine)).toBe(BigInt(settled.settled_amount ?? -1));
      expect(await tokenBalance(stack.B, shop.pinned)).toBe(0n);

      const event = await signedWebhook(`${body.id}:payment.succeeded`, shop.whsec);
      expect(event).toEqual({
        session_id: body.id,
        event_type: "payment.succeeded",
        amount: "2000000",
        settled_amount: settled.settled_amount,
        overpaid_amount: null,
        flow: "p2p_request",
        dest_address: mine,
        dest_chain_id: stack.A.chain.chainId,
        dest_pinned: false,
      });
      const first = await signedWebhook(`${body.id}:payment.detected`, shop.whsec);
      expect(first).toMatchObject({ flow: "p2p_request", dest_address: mine, dest_pinned: false });
    },
    T,
  );

  it(
    "with p2p_pinned_destinations_only: the same creation is 403 and the relayer sends nothing; the pinned destination is taken and its webhook says dest_pinned true",
    async () => {
      const shop = await newShop();
      expect(await getSettings(shop.merchant)).toEqual({
        object: "settings",
        p2p_pinned_destinations_only: false,
      });
      expect(await setSettings(shop.merchant, { p2pPinnedDestinationsOnly: true })).toEqual({
        object: "settings",
        p2p_pinned_destinations_only: true,
      });
      expect(await getSettings(shop.merchant)).toMatchObject({ p2p_pinned_destinations_only: true });

      const before = await relayerNonces();
      const mine = makeBurner().address.toLowerCase() as Address;
      const refused = [
        await strangerSession(shop.pk, mine, stack.A.chain.chainId),
        await strangerSession(shop.pk, mine, stack.B.chain.chainId),
        // The pinned address on another chain than pinned is not the pin either.
        await strangerSession(shop.pk, shop.pinned, stack.A.chain.chainId),
      ];
      for (const r of refused) {
        expect(r.status, JSON.stringify(r.body)).toBe(403);
        expect(r.body).toEqual({ error: expect.stringMatching(/pinned/) });
      }
      // The stranger pays the refused burner anyway: no session watches it, nothing is relayed.
      const paid = refused[0]?.burner.address as Address;
      await fund(stack.A, paid, stack.A.chain.usdc, 1_000_000n);
      await new Promise((r) => setTimeout(r, 5_000));
      expect(await relayerNonces()).toEqual(before);

      // The control: the pinned destination is accepted, and its webhook says so.
      const ok = await strangerSession(shop.pk, shop.pinned, stack.B.chain.chainId);
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      await fund(stack.A, ok.burner.address, stack.A.chain.usdc, 1_000_000n);
      const detected = await signedWebhook(`${ok.body.id}:payment.detected`, shop.whsec);
      expect(detected).toMatchObject({
        event_type: "payment.detected",
        flow: "p2p_request",
        dest_address: shop.pinned,
        dest_chain_id: stack.B.chain.chainId,
        dest_pinned: true,
      });
      // Detection alone sends nothing on chain either.
      expect(await relayerNonces()).toEqual(before);
    },
    T,
  );
});
