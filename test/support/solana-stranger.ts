// A stranger on the stack's Solana node, as test/e2e/stranger-solana.e2e.test.ts plays it: sessions
// with its own burner registered, payments from the stack's funded payer, and the burner-signed
// refunds and sweeps the service's routes take, answered as { status, body }.
import { getOrCreateAssociatedTokenAccount, transfer } from "@solana/spl-token";
import {
  Keypair,
  type PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { expect } from "vitest";
import { buildSolanaRefund } from "../../src/chains/solana/refund.ts";
import { buildSolanaSweep, NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import { associatedTokenBalance } from "../../src/chains/solana/token-accounts.ts";
import { createApiClient, type Session } from "../../src/client/index.ts";
import type { TestService } from "./service.ts";
import { sessionUntil } from "./session-poll.ts";
import { burnerRegistration, stackSolanaOf } from "./solana-node.ts";

export type Paid = {
  id: string;
  burner: Keypair;
  terms: { fee_payer: string; sweep_to: string; fee_bps: number };
};

/** The stranger's tools against `svc`, its sessions paying a fresh address on EVM chain `destChain`. */
export function solanaStranger(svc: TestService, destChain: number) {
  const { sol, mint, payer, relayer, vault } = stackSolanaOf(svc);
  const post = async (path: string, body: object) => {
    const res = await fetch(`${svc.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const until = (id: string, pred: (s: Session) => boolean, timeoutMs = 30_000) =>
    sessionUntil(createApiClient({ baseUrl: svc.url }), id, pred, timeoutMs);
  const lamports = async (key: PublicKey) => BigInt(await sol.getBalance(key, "confirmed"));
  const usdcOf = (owner: PublicKey) => associatedTokenBalance(sol, mint, owner);
  const blockhash = async () =>
    ((await (await fetch(`${svc.url}/solana/blockhash`)).json()) as { blockhash: string }).blockhash;

  /** A Solana-origin session paying a fresh EVM address, the stranger's burner registered on it. */
  async function openSession(): Promise<Paid> {
    const created = await post("/sessions/solana", {
      destination_address: privateKeyToAddress(generatePrivateKey()),
      destination_chain: destChain,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id as string;
    const burner = Keypair.generate();
    const registered = await post(`/sessions/${id}/solana-burner`, burnerRegistration(burner, id));
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    return { id, burner, terms: created.body.sweep as Paid["terms"] };
  }

  /** The payer sends `amount` of USDC (or of `viaMint`) to `to`, opening its USDC account on the way. */
  async function payUsdc(to: PublicKey, amount: bigint, viaMint = mint) {
    const from = await getOrCreateAssociatedTokenAccount(sol, payer, viaMint, payer.publicKey);
    const into = await getOrCreateAssociatedTokenAccount(sol, payer, viaMint, to);
    await transfer(sol, payer, from.address, into.address, payer, amount);
  }
  async function paySol(to: PublicKey, amount: bigint) {
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: amount }),
    );
    await sendAndConfirmTransaction(sol, tx, [payer]);
  }

  /** The burner-signed refund of `amount` (default: its whole balance) of `token` to `to`, as the route takes it. */
  async function refund(p: Paid, to: PublicKey, token = mint.toBase58(), amount?: bigint) {
    const whole =
      token === NATIVE_MINT ? await lamports(p.burner.publicKey) : await usdcOf(p.burner.publicKey);
    const tx = buildSolanaRefund({
      burner: p.burner.publicKey.toBase58(),
      feePayer: relayer.toBase58(),
      token,
      to: to.toBase58(),
      amount: amount ?? whole,
      blockhash: await blockhash(),
    });
    tx.partialSign(p.burner);
    const transaction = tx.serialize({ requireAllSignatures: false }).toString("base64");
    return post(`/sessions/${p.id}/solana-refund`, { transaction, to: to.toBase58(), token });
  }

  /** The payer's commit of a sweep of the whole deposit of `token` (the delivery to the vault, the fee to the relayer). */
  async function commit(p: Paid, amount: bigint, token = mint.toBase58()) {
    const fee = (amount * BigInt(p.terms.fee_bps)) / 10_000n;
    const tx = buildSolanaSweep({
      burner: p.burner.publicKey.toBase58(),
      feePayer: p.terms.fee_payer,
      token,
      legs: [
        { to: p.terms.sweep_to, amount: amount - fee },
        { to: p.terms.fee_payer, amount: fee },
      ],
      blockhash: await blockhash(),
    });
    tx.partialSign(p.burner);
    const transaction = tx.serialize({ requireAllSignatures: false }).toString("base64");
    return post(`/sessions/${p.id}/commit`, { transaction });
  }
  return {
    sol,
    mint,
    payer,
    relayer,
    vault,
    until,
    lamports,
    usdcOf,
    openSession,
    payUsdc,
    paySol,
    refund,
    commit,
  };
}
