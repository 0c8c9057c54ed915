// The local Solana node spoken to by an unmodified @solana/web3.js 1.98 Connection and @solana/spl-token
// 0.4: what a real client sends and expects on the wire, confirmed then finalized, the signature index,
// preflight refusals, and a restart that keeps the chain.
import {
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopSolana } from "../../deploy/local/solana/launcher.ts";
import { waitFor } from "../support/actor-host.ts";
import { keypairOf, startPrivateSolana } from "../support/solana-node.ts";

const SLOT_MS = 100;
const FINALITY_LAG = 10; // slots: finalized ~1 s after confirmed

let node: Awaited<ReturnType<typeof startPrivateSolana>>;
let connection: Connection;
let payer: Keypair;
let mint: PublicKey;
const recipient = Keypair.generate();

async function rawRpc(method: string, params: unknown[]) {
  const res = await fetch(node.info.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return (await res.json()) as {
    result?: unknown;
    error?: { code: number; message: string; data?: { logs: string[]; err: unknown } };
  };
}

beforeAll(async () => {
  node = await startPrivateSolana({ slotMs: SLOT_MS, finalityLag: FINALITY_LAG });
  connection = new Connection(node.info.rpcUrl, "confirmed");
  payer = keypairOf(node.info.testKey);
  mint = new PublicKey(node.info.usdcMint);
}, 60_000);

afterAll(async () => {
  if (node) await stopSolana(node.root);
});

describe("local Solana node", () => {
  it("answers the chain-state reads a client starts with", async () => {
    expect((await connection.getVersion())["solana-core"]).toMatch(/\d+\.\d+\.\d+/);
    const genesis = await connection.getGenesisHash();
    expect(genesis).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const slot = await connection.getSlot();
    const finalized = await connection.getSlot("finalized");
    expect(slot).toBeGreaterThan(0);
    expect(finalized).toBe(Math.max(0, slot - FINALITY_LAG));
    expect(await connection.getBlockHeight()).toBeGreaterThanOrEqual(slot);
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    expect(lastValidBlockHeight).toBeGreaterThanOrEqual(slot + 150);
    expect((await connection.isBlockhashValid(blockhash)).value).toBe(true);
    expect((await connection.isBlockhashValid(genesis)).value).toBe(slot <= 150);
    const info = await connection.getAccountInfo(mint);
    expect(info?.owner.toBase58()).toBe("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
  });

  it("confirms a SOL transfer sent with sendAndConfirmTransaction, then finalizes it after the lag", async () => {
    const slots: number[] = [];
    const slotSub = connection.onSlotChange((s) => slots.push(s.slot));
    const seen: number[] = [];
    const accountSub = connection.onAccountChange(
      recipient.publicKey,
      (a) => seen.push(a.lamports),
      "confirmed",
    );
    await new Promise((r) => setTimeout(r, 300)); // let the subscriptions reach the node
    const tx = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: recipient.publicKey,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    const before = await connection.getBalance(payer.publicKey);
    const signature = await sendAndConfirmTransaction(connection, tx, [payer]);
    const status = (await connection.getSignatureStatus(signature)).value;
    expect(status?.confirmationStatus).toBe("confirmed");
    expect(status?.err).toBeNull();
    expect(await connection.getBalance(recipient.publicKey)).toBe(LAMPORTS_PER_SOL);
    expect(await connection.getBalance(payer.publicKey)).toBe(before - LAMPORTS_PER_SOL - 5000);
    // Not in the finalized view yet, then finalized once FINALITY_LAG slots have passed.
    expect(await connection.getTransaction(signature, { commitment: "finalized" })).toBeNull();
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const done = await connection.confirmTransaction(
      { signature, blockhash, lastValidBlockHeight },
      "finalized",
    );
    expect(done.value.err).toBeNull();
    expect((await connection.getSignatureStatus(signature)).value?.confirmationStatus).toBe("finalized");
    const finalizedTx = await connection.getTransaction(signature, { commitment: "finalized" });
    expect(finalizedTx?.slot).toBe(status?.slot);
    const block = await connection.getBlock(status?.slot as number, { maxSupportedTransactionVersion: 0 });
    expect(block?.transactions.map((t) => t.transaction.signatures[0])).toContain(signature);
    expect(seen).toContain(LAMPORTS_PER_SOL);
    expect(slots.length).toBeGreaterThan(3);
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    await connection.removeSlotChangeListener(slotSub);
    await connection.removeAccountChangeListener(accountSub);
  });

  let usdcSignatures: string[] = [];
  it("moves USDC with spl-token and reports it as a real RPC does", async () => {
    const source = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const dest = await getOrCreateAssociatedTokenAccount(connection, payer, mint, recipient.publicKey);
    expect(dest.amount).toBe(0n);
    const first = await transfer(connection, payer, source, dest.address, payer, 2_500_000n);
    const second = await transfer(connection, payer, source, dest.address, payer, 1_000_001n);
    usdcSignatures = [second, first];
    const balance = (await connection.getTokenAccountBalance(dest.address)).value;
    expect(balance).toEqual({
      amount: "3500001",
      decimals: 6,
      uiAmount: 3.500001,
      uiAmountString: "3.500001",
    });

    const tx = await connection.getTransaction(first, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.err).toBeNull();
    const keys = tx?.transaction.message.staticAccountKeys.map((k) => k.toBase58()) ?? [];
    const tokenBalance = (list: typeof tx extends null ? never : unknown, account: PublicKey) =>
      (
        list as { accountIndex: number; uiTokenAmount: { amount: string }; owner: string; mint: string }[]
      ).find((b) => keys[b.accountIndex] === account.toBase58());
    const preDest = tokenBalance(tx?.meta?.preTokenBalances, dest.address);
    const postDest = tokenBalance(tx?.meta?.postTokenBalances, dest.address);
    const preSource = tokenBalance(tx?.meta?.preTokenBalances, source);
    const postSource = tokenBalance(tx?.meta?.postTokenBalances, source);
    expect(preDest).toMatchObject({ mint: mint.toBase58(), owner: recipient.publicKey.toBase58() });
    expect(preDest?.uiTokenAmount.amount).toBe("0");
    expect(postDest?.uiTokenAmount.amount).toBe("2500000");
    expect(BigInt(preSource?.uiTokenAmount.amount ?? 0) - BigInt(postSource?.uiTokenAmount.amount ?? 0)).toBe(
      2_500_000n,
    );
    expect(
      tx?.meta?.logMessages?.some((l) => l.includes("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA")),
    ).toBe(true);

    const listed = await connection.getSignaturesForAddress(dest.address, {}, "confirmed");
    // Newest first: the two transfers, then the account's creation.
    expect(listed.slice(0, 2).map((s) => s.signature)).toEqual(usdcSignatures);
    expect(listed).toHaveLength(3);
    for (const entry of listed) {
      expect(entry.err).toBeNull();
      expect(entry.slot).toBeGreaterThan(0);
      expect(["confirmed", "finalized"]).toContain(entry.confirmationStatus);
    }
    expect(listed[0]?.slot).toBeGreaterThanOrEqual(listed[1]?.slot ?? Infinity);
    const page = await connection.getSignaturesForAddress(
      dest.address,
      { before: second, limit: 1 },
      "confirmed",
    );
    expect(page.map((s) => s.signature)).toEqual([first]);
  });

  it("refuses a failing transaction at preflight with -32002 and its logs, and a replayed one", async () => {
    const source = getAssociatedTokenAddressSync(mint, payer.publicKey);
    const dest = getAssociatedTokenAddressSync(mint, recipient.publicKey);
    const tooMuch = transfer(connection, payer, source, dest, payer, 10n ** 15n);
    await expect(tooMuch).rejects.toBeInstanceOf(SendTransactionError);
    const err = (await tooMuch.catch((e: unknown) => e)) as SendTransactionError;
    expect(err.logs?.join("\n")).toContain("insufficient funds");

    const { blockhash } = await connection.getLatestBlockhash();
    const overspend = new Transaction({ feePayer: recipient.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({
        fromPubkey: recipient.publicKey,
        toPubkey: payer.publicKey,
        lamports: 5 * LAMPORTS_PER_SOL,
      }),
    );
    overspend.sign(recipient);
    const raw = await rawRpc("sendTransaction", [
      overspend.serialize().toString("base64"),
      { encoding: "base64" },
    ]);
    expect(raw.error?.code).toBe(-32002);
    expect(raw.error?.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(raw.error?.data?.logs.length).toBeGreaterThan(0);

    // With skipPreflight it is included, failed, and its fee is charged, as on a cluster.
    const before = await connection.getBalance(recipient.publicKey);
    const included = await connection.sendRawTransaction(overspend.serialize(), { skipPreflight: true });
    const landed = await connection.getTransaction(included, { commitment: "confirmed" });
    expect(landed?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await connection.getBalance(recipient.publicKey)).toBe(before - 5000);
    const listed = await connection.getSignaturesForAddress(recipient.publicKey, { limit: 1 }, "confirmed");
    expect(listed[0]).toMatchObject({ signature: included, err: { InstructionError: [0, { Custom: 1 }] } });

    const ok = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient.publicKey, lamports: 1000 }),
    );
    ok.sign(payer);
    const wire = ok.serialize();
    const signature = await connection.sendRawTransaction(wire);
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight: 1e9 }, "confirmed");
    const balance = await connection.getBalance(recipient.publicKey);
    await expect(connection.sendRawTransaction(wire)).rejects.toThrow(/already been processed/);
    expect(await connection.getBalance(recipient.publicKey)).toBe(balance);
  });

  // Issue 28 item 6: what wallets read before they sign, and how they simulate before asking to.
  it("answers jsonParsed for token accounts, mints and transactions; other accounts fall back to base64", async () => {
    const dest = getAssociatedTokenAddressSync(mint, recipient.publicKey);
    const account = (await connection.getParsedAccountInfo(dest)).value;
    expect(account?.data).toMatchObject({
      program: "spl-token",
      space: 165,
      parsed: {
        type: "account",
        info: {
          mint: mint.toBase58(),
          owner: recipient.publicKey.toBase58(),
          state: "initialized",
          isNative: false,
          tokenAmount: { amount: "3500001", decimals: 6, uiAmountString: "3.500001" },
        },
      },
    });
    const byOwner = await connection.getParsedTokenAccountsByOwner(recipient.publicKey, { mint });
    expect(
      byOwner.value.map((a) => [a.pubkey.toBase58(), a.account.data.parsed.info.tokenAmount.amount]),
    ).toEqual([[dest.toBase58(), "3500001"]]);
    const mintInfo = (await connection.getParsedAccountInfo(mint)).value?.data;
    expect(mintInfo).toMatchObject({ program: "spl-token", parsed: { type: "mint", info: { decimals: 6 } } });
    // A wallet holds no data a parser knows: base64, as Agave answers.
    expect(Buffer.isBuffer((await connection.getParsedAccountInfo(recipient.publicKey)).value?.data)).toBe(
      true,
    );

    const [, first] = usdcSignatures;
    const parsed = await connection.getParsedTransaction(first as string, { commitment: "confirmed" });
    expect(parsed?.transaction.message.accountKeys[0]).toMatchObject({ signer: true, writable: true });
    expect(parsed?.transaction.message.accountKeys[0]?.pubkey.toBase58()).toBe(payer.publicKey.toBase58());
    expect(parsed?.transaction.message.instructions).toEqual([
      expect.objectContaining({
        program: "spl-token",
        parsed: {
          type: "transfer",
          info: expect.objectContaining({ destination: dest.toBase58(), amount: "2500000" }),
        },
      }),
    ]);
  });

  it("simulates an unsigned transaction (sigVerify false, the default) and one with a replaced blockhash", async () => {
    const balanceBefore = await connection.getBalance(recipient.publicKey);
    const { blockhash } = await connection.getLatestBlockhash();
    const unsigned = (recentBlockhash: string) =>
      new VersionedTransaction(
        new TransactionMessage({
          payerKey: payer.publicKey,
          recentBlockhash,
          instructions: [
            SystemProgram.transfer({
              fromPubkey: payer.publicKey,
              toPubkey: recipient.publicKey,
              lamports: 10_000_000n, // above the rent-exempt minimum, whatever the recipient holds
            }),
          ],
        }).compileToV0Message(),
      );
    expect(
      (await connection.simulateTransaction(unsigned(blockhash), { sigVerify: false })).value.err,
    ).toBeNull();
    expect((await connection.simulateTransaction(unsigned(blockhash))).value.err).toBeNull();
    // Asked to verify what is unsigned: refused, as Agave refuses it.
    await expect(connection.simulateTransaction(unsigned(blockhash), { sigVerify: true })).rejects.toThrow(
      /signature/,
    );
    // An unknown blockhash: refused as it stands, run with the newest one when the wallet asks.
    const stale = Keypair.generate().publicKey.toBase58();
    expect((await connection.simulateTransaction(unsigned(stale))).value.err).toBe("BlockhashNotFound");
    const replaced = await connection.simulateTransaction(unsigned(stale), { replaceRecentBlockhash: true });
    expect(replaced.value.err).toBeNull();
    // web3.js's type omits the field Agave answers with.
    const replacement = (replaced.value as { replacementBlockhash?: { blockhash: string } })
      .replacementBlockhash;
    expect(replacement?.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const both = await rawRpc("simulateTransaction", [
      Buffer.from(unsigned(blockhash).serialize()).toString("base64"),
      { encoding: "base64", sigVerify: true, replaceRecentBlockhash: true },
    ]);
    expect(both.error?.code).toBe(-32602);
    // Nothing a simulation ran was kept.
    expect(await connection.getBalance(recipient.publicKey)).toBe(balanceBefore);
  });

  it("keeps balances, signatures and slots across a restart on the same root", async () => {
    const dest = getAssociatedTokenAddressSync(mint, recipient.publicKey);
    const slot = await connection.getSlot();
    const genesis = await connection.getGenesisHash();
    const signatures = (await connection.getSignaturesForAddress(dest, {}, "confirmed")).map(
      (s) => s.signature,
    );
    const lamports = await connection.getBalance(recipient.publicKey);
    await stopSolana(node.root);
    await expect(connection.getSlot()).rejects.toThrow();
    const again = await node.start();
    expect(again.started).toBe(true);
    expect(again.usdcMint).toBe(node.info.usdcMint);
    expect(await connection.getGenesisHash()).toBe(genesis);
    // The slot goes on from where it was (not from 0); the first new one may not be made yet.
    expect(await connection.getSlot()).toBeGreaterThanOrEqual(slot);
    await waitFor(
      "a slot after the restart",
      async () => ((await connection.getSlot()) > slot ? true : undefined),
      50 * SLOT_MS,
    );
    expect((await connection.getTokenAccountBalance(dest)).value.amount).toBe("3500001");
    expect(await connection.getBalance(recipient.publicKey)).toBe(lamports);
    const after = await connection.getSignaturesForAddress(dest, {}, "confirmed");
    expect(after.map((s) => s.signature)).toEqual(signatures);
    const tx = await connection.getTransaction(usdcSignatures[0] as string, {
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.postTokenBalances?.length).toBeGreaterThan(0);
    // And it goes on working: a transfer after the restart.
    const more = await transfer(
      connection,
      payer,
      getAssociatedTokenAddressSync(mint, payer.publicKey),
      dest,
      payer,
      9n,
    );
    expect((await connection.getSignatureStatus(more)).value?.err).toBeNull();
  });
});
