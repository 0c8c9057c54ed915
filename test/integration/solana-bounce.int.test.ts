// The bounce's chain side on a real local Solana node (docs/SOLANA.md, "The bounce"): the setup the
// burner signs, checked and co-signed by the relayer once a deposit opened the burner's USDC account,
// lets the relayer move the burner's USDC to the signed refund address and close the emptied account;
// a setup sent before any deposit, or too late for its blockhash, is refused in preflight and costs the
// relayer nothing; what the payer revokes the relayer no longer tries; SOL goes back only with the
// burner's own key.
import {
  createRevokeInstruction,
  getAccount,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import {
  type Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  type PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StepRefused } from "../../src/chains/execution-errors.ts";
import { buildBounce, planBounce } from "../../src/chains/solana/bounce.ts";
import { createSolanaBouncer } from "../../src/chains/solana/bounce-executor.ts";
import {
  BOUNCE_ALLOWANCE,
  burnerTokenAccount,
  checkBounceSetup,
} from "../../src/chains/solana/bounce-setup.ts";
import { createSolanaGatewaySide } from "../../src/chains/solana/gateway-side.ts";
import { makeSolanaBurner } from "../../src/client/actions/make-solana-burner.ts";
import { refundSolanaSol } from "../../src/client/actions/refund-solana-sol.ts";
import { signSolanaBounceSetup } from "../../src/client/actions/sign-solana-bounce-setup.ts";
import { kitBounceSetupInstructions, kitSigned, kitSweepInstructions } from "../support/solana-clients.ts";
import { openPrivateSolana } from "../support/solana-node.ts";

let connection: Connection;
let relayer: Keypair;
let depositor: Keypair;
let mint: PublicKey;

let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ connection, relayer, depositor, mint, stop } = await openPrivateSolana());
}, 60_000);

afterAll(async () => {
  await stop?.();
});

/** The burner's setup, signed on the newest blockhash. */
async function signSetup(sessionId: string, burner: Keypair, refundTo: string) {
  const { blockhash } = await connection.getLatestBlockhash();
  return signSolanaBounceSetup({
    sessionId,
    burner,
    refundTo,
    relayer: relayer.publicKey.toBase58(),
    mint: mint.toBase58(),
    blockhash,
  });
}

/**
 * A paid burner and its setup as the service relays it once the deposit is recorded: the client's
 * signed setup checked, co-signed by the relayer, sent.
 */
async function paidWithBounce(sessionId: string, refundTo: string, amount: bigint) {
  const burner = makeSolanaBurner();
  await deposit(burner.keypair.publicKey, amount);
  const wire = await signSetup(sessionId, burner.keypair, refundTo);
  const checked = checkBounceSetup(wire, {
    sessionId,
    burner: burner.keypair.publicKey,
    relayer: relayer.publicKey,
    mint,
  });
  if (!checked.ok) throw new Error(checked.reason);
  expect(checked.refundTo).toBe(refundTo);
  checked.transaction.sign([relayer]);
  const signature = await connection.sendRawTransaction(checked.transaction.serialize());
  await connection.confirmTransaction(signature, "confirmed");
  return { burner, signature };
}

/** The depositor pays the burner, opening its USDC account (the depositor pays that rent). */
async function deposit(burner: PublicKey, amount: bigint) {
  const from = await getOrCreateAssociatedTokenAccount(connection, depositor, mint, depositor.publicKey);
  const to = await getOrCreateAssociatedTokenAccount(connection, depositor, mint, burner);
  await transfer(connection, depositor, from.address, to.address, depositor, amount);
}

/** The bounce as the relayer signs it, on a fresh blockhash. */
async function bounceTx(burner: PublicKey, refundTo: PublicKey, amount: bigint, close: boolean) {
  const { blockhash } = await connection.getLatestBlockhash();
  const relayerKey = relayer.publicKey;
  return buildBounce({ burner, refundTo, relayer: relayerKey, mint, decimals: 6, amount, close, blockhash });
}

const lamportsOf = async (key: PublicKey) => BigInt(await connection.getBalance(key, "confirmed"));
const usdcOf = async (owner: PublicKey) =>
  (await getAccount(connection, getAssociatedTokenAddressSync(mint, owner))).amount;

describe("the Solana bounce on chain", () => {
  it("moves the whole USDC balance and the account's rent to the signed refund address; the relayer pays only fees", async () => {
    const wallet = Keypair.generate();
    // The payer's wallet holds USDC (it paid from it): its USDC account exists, the bounce lands there.
    const walletAccount = await getOrCreateAssociatedTokenAccount(
      connection,
      depositor,
      mint,
      wallet.publicKey,
    );
    const relayerBefore = await lamportsOf(relayer.publicKey);
    const walletBefore = await lamportsOf(wallet.publicKey);
    const { burner, signature } = await paidWithBounce(
      crypto.randomUUID(),
      wallet.publicKey.toBase58(),
      25_000_000n,
    );
    const setupTx = await connection.getTransaction(signature, { commitment: "confirmed" });
    expect(setupTx?.meta?.logMessages?.join("\n")).toContain("deposit-settlement bounce v1");

    const account = await getAccount(connection, burnerTokenAccount(burner.keypair.publicKey, mint));
    expect(account.owner.equals(burner.keypair.publicKey)).toBe(true);
    expect(account.delegate?.equals(relayer.publicKey)).toBe(true);
    expect(account.delegatedAmount).toBe(BOUNCE_ALLOWANCE);
    expect(account.closeAuthority?.equals(relayer.publicKey)).toBe(true);
    const rent = BigInt((await connection.getAccountInfo(account.address))?.lamports ?? 0);
    expect(rent).toBe(2_039_280n);

    const plan = planBounce(account, walletAccount, relayer.publicKey);
    expect(plan).toEqual({ kind: "bounce", amount: 25_000_000n, close: true });
    if (plan.kind !== "bounce") return;
    const bounce = await bounceTx(burner.keypair.publicKey, wallet.publicKey, plan.amount, plan.close);
    await sendAndConfirmTransaction(connection, bounce, [relayer]);

    const refunded = await getAccount(connection, getAssociatedTokenAddressSync(mint, wallet.publicKey));
    expect(refunded.amount).toBe(25_000_000n);
    expect(await connection.getAccountInfo(account.address)).toBeNull();
    expect(planBounce(null, refunded, relayer.publicKey)).toEqual({ kind: "empty" });
    // The relayer opened no account: it paid two fees, the setup's (two signatures) and the bounce's
    // (one). The account's rent, paid by the deposit, went to the refund address with the money.
    expect(relayerBefore - (await lamportsOf(relayer.publicKey))).toBe(15_000n);
    expect((await lamportsOf(wallet.publicKey)) - walletBefore).toBe(rent);
  });

  it("plans no bounce once the payer revoked the relayer, so the relayer sends nothing", async () => {
    const wallet = Keypair.generate();
    const { burner } = await paidWithBounce(crypto.randomUUID(), wallet.publicKey.toBase58(), 1_000_000n);
    const tokenAccount = burnerTokenAccount(burner.keypair.publicKey, mint);
    // The payer's own key can always take the delegation back (the depositor pays this fee).
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(createRevokeInstruction(tokenAccount, burner.keypair.publicKey)),
      [depositor, burner.keypair],
    );
    const account = await getAccount(connection, tokenAccount);
    const walletAccount = await getOrCreateAssociatedTokenAccount(
      connection,
      depositor,
      mint,
      wallet.publicKey,
    );
    expect(planBounce(account, walletAccount, relayer.publicKey)).toEqual({ kind: "not_delegated" });
    // Sent anyway, the chain refuses it in preflight and the relayer pays nothing.
    const before = await lamportsOf(relayer.publicKey);
    const bounce = await bounceTx(burner.keypair.publicKey, wallet.publicKey, account.amount, true);
    await expect(sendAndConfirmTransaction(connection, bounce, [relayer])).rejects.toThrow(
      SendTransactionError,
    );
    expect(await lamportsOf(relayer.publicKey)).toBe(before);
  });

  it("plans no bounce to a refund address without a USDC account: the relayer would pay its rent", async () => {
    const wallet = Keypair.generate();
    const { burner } = await paidWithBounce(crypto.randomUUID(), wallet.publicKey.toBase58(), 1_000_000n);
    const account = await getAccount(connection, burnerTokenAccount(burner.keypair.publicKey, mint));
    expect(account.amount).toBe(1_000_000n);
    expect(planBounce(account, null, relayer.publicKey)).toEqual({ kind: "no_refund_account" });
  });

  it("the executor's bouncer refuses a setup before any deposit at no cost, relays it after one, bounces once, and a re-run finds the landed bounce", async () => {
    const bouncer = createSolanaBouncer({ connection, relayer, mint: mint.toBase58() });
    const wallet = Keypair.generate();
    await getOrCreateAssociatedTokenAccount(connection, depositor, mint, wallet.publicKey);
    const sessionId = crypto.randomUUID();
    const burner = makeSolanaBurner();
    const burnerAddress = burner.keypair.publicKey.toBase58();
    const setupOf = (transaction: string) => ({
      type: "SolanaBounceSetup" as const,
      burner: burnerAddress,
      transaction,
    });
    const before = await lamportsOf(relayer.publicKey);
    // No deposit, no account to approve: refused in preflight, nothing spent, nothing opened.
    const early = setupOf(await signSetup(sessionId, burner.keypair, wallet.publicKey.toBase58()));
    await expect(bouncer.relaySetup(early, sessionId)).rejects.toThrow(StepRefused);
    expect(await lamportsOf(relayer.publicKey)).toBe(before);
    expect(await connection.getAccountInfo(burnerTokenAccount(burner.keypair.publicKey, mint))).toBeNull();

    await deposit(burner.keypair.publicKey, 7_000_000n);
    const setup = setupOf(await signSetup(sessionId, burner.keypair, wallet.publicKey.toBase58()));
    const relayed = await bouncer.relaySetup(setup, sessionId);
    // The same command again (a redelivery): the same signed bytes, found landed, not sent again.
    expect(await bouncer.relaySetup(setup, sessionId)).toEqual(relayed);
    await expect(bouncer.relaySetup(setup, crypto.randomUUID())).rejects.toThrow(StepRefused);
    expect(before - (await lamportsOf(relayer.publicKey))).toBe(10_000n);

    const work = {
      type: "SolanaBounce" as const,
      burner: burnerAddress,
      mint: mint.toBase58(),
      to: wallet.publicKey.toBase58(),
    };
    const bounced = await bouncer.bounce(work);
    expect(await usdcOf(wallet.publicKey)).toBe(7_000_000n);
    // Run again (the executor crashed before reporting): the landed bounce is the answer.
    expect(await bouncer.bounce(work)).toEqual(bounced);
    // Three signatures' fees in all (the setup's two, the bounce's one), and no rent.
    expect(before - (await lamportsOf(relayer.publicKey))).toBe(15_000n);
    expect(await usdcOf(wallet.publicKey)).toBe(7_000_000n);
  });

  it("returns a burner's SOL with the burner's own key, less the fee it pays", async () => {
    const burner = makeSolanaBurner();
    const wallet = Keypair.generate();
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: depositor.publicKey,
          toPubkey: burner.keypair.publicKey,
          lamports: LAMPORTS_PER_SOL,
        }),
      ),
      [depositor],
    );
    const sent = await refundSolanaSol({
      connection,
      burner: burner.keypair,
      to: wallet.publicKey.toBase58(),
    });
    expect(sent?.lamports).toBe(BigInt(LAMPORTS_PER_SOL) - 5_000n);
    expect(await lamportsOf(wallet.publicKey)).toBe(BigInt(LAMPORTS_PER_SOL) - 5_000n);
    expect(await lamportsOf(burner.keypair.publicKey)).toBe(0n);
    expect(
      await refundSolanaSol({ connection, burner: burner.keypair, to: wallet.publicKey.toBase58() }),
    ).toBeNull();
  });

  // Issue 28 item 6: a client on @solana/kit compiling v0 (docs/SOLANA.md, "What the service checks ...").
  it("a kit v0 refund is accepted by the gateway side and relayed by the bouncer: the whole balance to the payer", async () => {
    const wallet = Keypair.generate().publicKey;
    await getOrCreateAssociatedTokenAccount(connection, depositor, mint, wallet);
    const burner = Keypair.generate();
    await deposit(burner.publicKey, 3_000_000n);
    const feePayer = relayer.publicKey.toBase58();
    const leg = { to: wallet.toBase58(), amount: 3_000_000n };
    const { blockhash } = await connection.getLatestBlockhash();
    const ixs = await kitSweepInstructions({
      burner: burner.publicKey.toBase58(),
      feePayer,
      token: mint.toBase58(),
      legs: [leg],
    });
    const wire = await kitSigned(0, feePayer, blockhash, ixs, burner);
    const expected = { burner: burner.publicKey.toBase58(), token: mint.toBase58(), to: wallet.toBase58() };
    const checked = await gatewaySide().checkRefund(wire, expected);
    expect(checked).toMatchObject({ ok: true, amount: 3_000_000n });

    const bouncer = createSolanaBouncer({ connection, relayer, mint: mint.toBase58() });
    const landed = await bouncer.relayRefund({
      type: "RelaySolanaRefund",
      burner: burner.publicKey.toBase58(),
      transaction: wire,
    });
    expect(await usdcOf(wallet)).toBe(3_000_000n);
    expect(await usdcOf(burner.publicKey)).toBe(0n);
    // The record's id is the burner's signature, the same the gateway read from the v0 bytes.
    const mined = await connection.getTransaction(landed.txHash, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(mined?.transaction.signatures[1]).toBe(checked.ok ? checked.signature : null);
  }, 60_000);

  it("a kit v0 bounce setup is accepted and relayed, and the relayer then bounces as its delegate", async () => {
    const wallet = Keypair.generate().publicKey;
    await getOrCreateAssociatedTokenAccount(connection, depositor, mint, wallet);
    const burner = Keypair.generate();
    await deposit(burner.publicKey, 4_000_000n);
    const sessionId = crypto.randomUUID();
    const { blockhash } = await connection.getLatestBlockhash();
    const ixs = await kitBounceSetupInstructions({
      sessionId,
      burner: burner.publicKey.toBase58(),
      refundTo: wallet.toBase58(),
      relayer: relayer.publicKey.toBase58(),
      mint: mint.toBase58(),
    });
    const wire = await kitSigned(0, relayer.publicKey.toBase58(), blockhash, ixs, burner);
    expect(
      await gatewaySide().checkBounceSetup(wire, { sessionId, burner: burner.publicKey.toBase58() }),
    ).toEqual({
      ok: true,
      refundTo: wallet.toBase58(),
    });
    const bouncer = createSolanaBouncer({ connection, relayer, mint: mint.toBase58() });
    const command = {
      type: "SolanaBounceSetup" as const,
      burner: burner.publicKey.toBase58(),
      transaction: wire,
    };
    const relayed = await bouncer.relaySetup(command, sessionId);
    expect(await bouncer.relaySetup(command, sessionId)).toEqual(relayed);
    await bouncer.bounce({
      type: "SolanaBounce",
      burner: burner.publicKey.toBase58(),
      mint: mint.toBase58(),
      to: wallet.toBase58(),
    });
    expect(await usdcOf(wallet)).toBe(4_000_000n);
  }, 60_000);

  // Last: web3.js caches a blockhash for 30 s, which this wait outlives on a node of 100 ms slots.
  it("a setup signed too long before its relay is refused in preflight: its blockhash expired, nothing spent", async () => {
    const bouncer = createSolanaBouncer({ connection, relayer, mint: mint.toBase58() });
    const sessionId = crypto.randomUUID();
    const burner = makeSolanaBurner();
    const wallet = Keypair.generate().publicKey.toBase58();
    const transaction = await signSetup(sessionId, burner.keypair, wallet);
    const blockhash = Transaction.from(Buffer.from(transaction, "base64")).recentBlockhash ?? "";
    await deposit(burner.keypair.publicKey, 1_000_000n);
    // 150 slots of 100 ms on this node: the blockhash is gone after ~15 s.
    for (let i = 0; i < 60 && (await connection.isBlockhashValid(blockhash)).value; i++)
      await new Promise((r) => setTimeout(r, 500));
    const before = await lamportsOf(relayer.publicKey);
    const setup = {
      type: "SolanaBounceSetup" as const,
      burner: burner.keypair.publicKey.toBase58(),
      transaction,
    };
    await expect(bouncer.relaySetup(setup, sessionId)).rejects.toThrow(
      /not relayed: .*[Bb]lockhash not found/,
    );
    expect(await lamportsOf(relayer.publicKey)).toBe(before);
  }, 45_000);
});

/** The gateway's Solana side over the private node, the relayer as fee payer. */
const gatewaySide = () =>
  createSolanaGatewaySide({
    chainId: 792703810,
    rpcUrl: connection.rpcEndpoint,
    usdcMint: mint.toBase58(),
    feePayer: relayer.publicKey.toBase58(),
    vault: relayer.publicKey.toBase58(),
    reaches: [],
  });
