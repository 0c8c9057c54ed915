// The fast fill on the local stack: a Solana USDC deposit swept by its payer into the service's vault
// on the local Solana node, then paid on the EVM destination anvil out of the relayer's USDC there.
// Every balance is read on the chains. The executor's floor leaves 15 USDC of the relayer's EVM
// inventory free, so the 10 USDC deposit is filled and a 20 USDC one is refused: the session shows
// why it waits, then fails with the shortfall once FILL_MAX_WAIT_MS (short here) has passed.
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { type Connection, Keypair, type PublicKey } from "@solana/web3.js";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSolanaSweep } from "../../src/chains/solana/sweep.ts";
import { createApiClient, type Session } from "../../src/client/index.ts";
import { type Ctx, fund, setUpChains, tokenBalance, usdc } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { sessionUntil } from "../support/session-poll.ts";
import { burnerRegistration, stackSolanaOf } from "../support/solana-node.ts";

const T = 60_000;
const DEST_CHAIN = 31338;

let svc: TestService;
let dst: Ctx;
let sol: Connection;
let mint: PublicKey;
let payer: Keypair;
let vault: PublicKey;
let relayerSol: PublicKey;
let relayerEvm: Address;

beforeAll(async () => {
  dst = (await setUpChains())("destination");
  relayerEvm = dst.chain.relayer.address;
  await fund(dst, relayerEvm, dst.chain.usdc, usdc(15));
  const floor = (await tokenBalance(dst, relayerEvm)) - usdc(15);
  svc = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { FILL_INVENTORY_FLOOR: floor.toString(), FILL_RETRY_MS: "500", FILL_MAX_WAIT_MS: "3000" },
  });
  ({ sol, mint, payer, vault, relayer: relayerSol } = stackSolanaOf(svc));
}, 240_000);
afterAll(async () => {
  await svc?.stop();
});

const api = () => createApiClient({ baseUrl: svc.url });
const post = async (path: string, body: object) => {
  const res = await fetch(`${svc.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const usdcOn = async (owner: PublicKey): Promise<bigint> => {
  const account = getAssociatedTokenAddressSync(mint, owner, true);
  const info = await sol.getTokenAccountBalance(account).catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
};

/** A Solana-origin session paying `dest` on the EVM destination chain, its burner registered and paid `amount`. */
async function paidSession(dest: Address, amount: bigint) {
  const created = await post("/sessions/solana", {
    destination_address: dest,
    destination_chain: DEST_CHAIN,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.id as string;
  const terms = created.body.sweep as { fee_payer: string; sweep_to: string; fee_bps: number };
  expect(terms.sweep_to).toBe(vault.toBase58());

  const burner = Keypair.generate();
  const registered = await post(`/sessions/${id}/solana-burner`, burnerRegistration(burner, id));
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);

  const from = await getOrCreateAssociatedTokenAccount(sol, payer, mint, payer.publicKey);
  const to = await getOrCreateAssociatedTokenAccount(sol, payer, mint, burner.publicKey);
  await transfer(sol, payer, from.address, to.address, payer, amount);
  await sessionUntil(api(), id, (s) => s.status === "detected", 30_000);
  return { id, burner, terms };
}

/** The payer's sweep of the whole deposit: the delivery to the vault, the platform fee to the relayer. */
async function commitSweep(p: Awaited<ReturnType<typeof paidSession>>, amount: bigint) {
  const fee = (amount * BigInt(p.terms.fee_bps)) / 10_000n;
  const res = await fetch(`${svc.url}/solana/blockhash`);
  const { blockhash } = (await res.json()) as { blockhash: string };
  const tx = buildSolanaSweep({
    burner: p.burner.publicKey.toBase58(),
    feePayer: p.terms.fee_payer,
    token: mint.toBase58(),
    legs: [
      { to: p.terms.sweep_to, amount: amount - fee },
      { to: p.terms.fee_payer, amount: fee },
    ],
    blockhash,
  });
  tx.partialSign(p.burner);
  const transaction = tx.serialize({ requireAllSignatures: false }).toString("base64");
  // Settlement waits for the deposit's slot to be finalized: the commit is answered once it is.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const committed = await post(`/sessions/${p.id}/commit`, { transaction });
    if (committed.status === 200) return;
    if (Date.now() > deadline) throw new Error(`commit refused: ${JSON.stringify(committed)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("EVM destinations: the fast fill", () => {
  it(
    "a Solana USDC deposit reaches the EVM destination: the vault takes the delivery, the relayer's inventory pays exactly it",
    async () => {
      const dest = privateKeyToAddress(generatePrivateKey());
      const before = {
        vault: await usdcOn(vault),
        relayerSol: await usdcOn(relayerSol),
        relayerEvm: await tokenBalance(dst, relayerEvm),
      };
      const p = await paidSession(dest, usdc(10));
      await commitSweep(p, usdc(10));

      const swept: Session = await sessionUntil(
        api(),
        p.id,
        (s) => s.status === "swept" || s.status === "failed",
        45_000,
      );
      expect(swept).toMatchObject({ status: "swept", outcome: "succeeded", dest_chain_id: DEST_CHAIN });
      // 10 USDC less the 0.8% platform fee; 6 decimals on both chains.
      expect(await tokenBalance(dst, dest)).toBe(usdc(9.92));
      expect(before.relayerEvm - (await tokenBalance(dst, relayerEvm))).toBe(usdc(9.92));
      expect((await usdcOn(vault)) - before.vault).toBe(usdc(9.92));
      expect((await usdcOn(relayerSol)) - before.relayerSol).toBe(usdc(0.08));
      expect(await usdcOn(p.burner.publicKey)).toBe(0n);
      // dest_tx is the payout on the EVM chain; bridge_tx the vault sweep's signature on Solana.
      const receipt = await dst.client.getTransactionReceipt({ hash: swept.dest_tx as `0x${string}` });
      expect(receipt.status).toBe("success");
      expect(receipt.to?.toLowerCase()).toBe(dst.chain.usdc.toLowerCase());
      expect(swept.bridge_tx).toBe(swept.sweep_tx);
      const sweepTx = await sol.getTransaction(swept.sweep_tx as string, { commitment: "finalized" });
      expect(sweepTx?.meta?.err).toBeNull();
    },
    T,
  );

  it(
    "a fill the inventory does not cover: the session shows it waits for inventory, then fails with the shortfall; nothing is paid on the EVM chain",
    async () => {
      const dest = privateKeyToAddress(generatePrivateKey());
      const before = { vault: await usdcOn(vault), relayerEvm: await tokenBalance(dst, relayerEvm) };
      const p = await paidSession(dest, usdc(20));
      await commitSweep(p, usdc(20));

      const waiting = await sessionUntil(
        api(),
        p.id,
        (s) => s.status !== "detected" && s.error_message !== null,
        45_000,
      );
      expect(waiting.status).toBe("sweeping");
      expect(waiting.error_message).toMatch(
        /^fast fill waits for inventory: needs 19840000 USDC base units on chain 31338, \d+ free/,
      );
      const failed = await sessionUntil(api(), p.id, (s) => s.status !== "sweeping", 15_000);
      expect(failed).toMatchObject({ status: "failed", dest_tx: null });
      expect(failed.error_message).toMatch(
        /^fast fill refused: the relayer's USDC inventory is short: needs 19840000 USDC base units on chain 31338/,
      );
      // The delivery stays in the vault; the EVM side paid nothing.
      expect((await usdcOn(vault)) - before.vault).toBe(usdc(19.84));
      expect(await tokenBalance(dst, dest)).toBe(0n);
      expect(await tokenBalance(dst, relayerEvm)).toBe(before.relayerEvm);
    },
    T,
  );
});
