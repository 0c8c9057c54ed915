// The Solana stealth withdrawal on the local stack (docs/STEALTH.md, "Withdrawal on Solana"): a
// stealth address derived with the solana-ed25519-1 scheme and funded with USDC on the local Solana
// node is withdrawn through prepare + withdraw by the recipient's client library (the spending scalar
// from its seeds, raw-scalar EdDSA) to a fresh wallet, the relayer paying the fee; a withdrawal
// changed to pay another destination, or not signed by the stealth key, is refused and moves nothing.
// Flow D on Solana (the session paying the stealth address, the memo announcement) is not built yet:
// the test derives and funds the stealth address itself.

import { randomBytes } from "node:crypto";
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { type Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStealthWithdrawal } from "../../src/chains/solana/stealth-withdraw.ts";
import { tokenAccountOrNull } from "../../src/chains/solana/token-accounts.ts";
import { createApiClient, withdrawSolanaStealth } from "../../src/client/index.ts";
import {
  deriveSolanaStealthAddress,
  newEphemeralScalar,
  signWithScalar,
  solanaStealthPublicKeys,
  solanaStealthSpendingScalar,
} from "../../src/stealth/ed25519.ts";
import { requestJson } from "../support/http.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { stackSolanaOf } from "../support/solana-node.ts";

const T = 60_000;
const AMOUNT = 2_500_000n; // 2.5 USDC

let svc: TestService;
let sol: Connection;
let mint: PublicKey;
let payer: Keypair;
let relayer: PublicKey;

beforeAll(async () => {
  svc = await startTestService({ roles: ["gateway"], env: { MERCHANT_MODE: "development" } });
  ({ sol, mint, payer, relayer } = stackSolanaOf(svc));
}, 240_000);
afterAll(async () => {
  await svc?.stop();
});

/** null: the owner has no USDC account (the withdrawal closes the stealth address's). */
const usdcOf = async (owner: PublicKey): Promise<bigint | null> =>
  (await tokenAccountOrNull(sol, getAssociatedTokenAddressSync(mint, owner, true)))?.amount ?? null;

/** A recipient's seeds and a stealth address of theirs funded with AMOUNT by the test wallet. */
async function fundedStealth() {
  const seeds = { spendSeed: randomBytes(32), viewSeed: randomBytes(32) };
  const announced = deriveSolanaStealthAddress(solanaStealthPublicKeys(seeds), newEphemeralScalar());
  const stealth = new PublicKey(announced.stealthAddress);
  const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
  const to = await getOrCreateAssociatedTokenAccount(sol, payer, mint, stealth);
  await transfer(sol, payer, from.address, to.address, payer, AMOUNT);
  return { seeds, announced, stealth };
}

describe("Solana stealth withdrawal", () => {
  it(
    "the recipient's library withdraws the whole balance to a fresh wallet, the relayer paying the fee",
    async () => {
      const { seeds, announced, stealth } = await fundedStealth();
      const destination = Keypair.generate().publicKey;
      const relayerLamports = await sol.getBalance(relayer, "confirmed");
      const sent = await withdrawSolanaStealth(createApiClient({ baseUrl: svc.url }), {
        stealthAddress: announced.stealthAddress,
        ephemeralPubkey: announced.ephemeralPubkey,
        ...seeds,
        destination: destination.toBase58(),
      });
      expect(sent.amount).toBe(String(AMOUNT));
      expect(sent.destination).toBe(destination.toBase58());
      expect(await usdcOf(destination)).toBe(AMOUNT);
      // The stealth account is closed; the relayer paid the fee and the destination's account rent,
      // and got the stealth account's rent back (both accounts 165 bytes): one fee of two signatures.
      expect(await usdcOf(stealth)).toBeNull();
      const tx = await sol.getTransaction(sent.signature, {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
      });
      expect(tx?.meta?.err).toBeNull();
      expect(tx?.transaction.message.staticAccountKeys[0]?.toBase58()).toBe(relayer.toBase58());
      expect(relayerLamports - (await sol.getBalance(relayer, "confirmed"))).toBe(tx?.meta?.fee);
      // Nothing is left to withdraw: a second prepare is refused.
      const again = await requestJson(svc.url, "/stealth/withdraw/solana/prepare", {
        method: "POST",
        body: { stealth_address: stealth.toBase58(), destination: destination.toBase58() },
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/holds no USDC/);
    },
    T,
  );

  it(
    "a withdrawal changed to pay another destination, or not signed by the stealth key, is refused and moves nothing",
    async () => {
      const { seeds, announced, stealth } = await fundedStealth();
      const destination = Keypair.generate().publicKey;
      const thief = Keypair.generate().publicKey;
      const body = { stealth_address: stealth.toBase58(), destination: destination.toBase58() };
      const prepared = await requestJson(svc.url, "/stealth/withdraw/solana/prepare", {
        method: "POST",
        body,
      });
      expect(prepared.status).toBe(200);
      expect(prepared.body.amount).toBe(String(AMOUNT));
      const p = solanaStealthSpendingScalar(announced.ephemeralPubkey, seeds);
      const signed = (tx: Transaction, scalar: bigint) => {
        tx.addSignature(stealth, Buffer.from(signWithScalar(scalar, tx.serializeMessage())));
        return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
      };
      const build = (to: PublicKey) =>
        buildStealthWithdrawal({
          stealthAddress: stealth.toBase58(),
          destination: to.toBase58(),
          feePayer: prepared.body.fee_payer,
          mint: prepared.body.token,
          amount: AMOUNT,
          blockhash: prepared.body.blockhash,
        });
      const attempts = [
        // Signed by the stealth key for the thief, sent as the destination's request.
        { ...body, transaction: signed(build(thief), p) },
        // Signed for the thief and asked for the thief, but by another key.
        { ...body, destination: thief.toBase58(), transaction: signed(build(thief), p + 1n) },
        // The prepared transaction, signed by another key.
        {
          ...body,
          transaction: signed(Transaction.from(Buffer.from(prepared.body.transaction, "base64")), p + 1n),
        },
        // Unsigned.
        { ...body, transaction: prepared.body.transaction },
      ];
      for (const attempt of attempts) {
        const res = await requestJson(svc.url, "/stealth/withdraw/solana", { method: "POST", body: attempt });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatch(/not the withdrawal prepared|signature is missing or invalid/);
      }
      expect(await usdcOf(stealth)).toBe(AMOUNT);
      expect(await usdcOf(thief)).toBeNull();
      expect(await usdcOf(destination)).toBeNull();
      // The prepared one, signed by the stealth key, goes through.
      const ok = await requestJson(svc.url, "/stealth/withdraw/solana", {
        method: "POST",
        body: {
          ...body,
          transaction: signed(Transaction.from(Buffer.from(prepared.body.transaction, "base64")), p),
        },
      });
      expect(ok.status).toBe(200);
      expect(await usdcOf(destination)).toBe(AMOUNT);
    },
    T,
  );
});
