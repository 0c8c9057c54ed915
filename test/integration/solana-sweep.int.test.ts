// The Solana sweep on a real local Solana node (docs/SOLANA.md, "The sweep"): the payer signs the sweep
// with the burner key, the service's check accepts it, the executor's relay co-signs it as fee payer,
// sends it and waits for finalized; the balances move exactly, the relayer pays only the fee, and a
// second relay of the same command sends nothing again. A sweep signed for another destination is
// refused by the check with nothing moved.
import {
  getAccount,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  transfer,
} from "@solana/spl-token";
import { type Connection, Keypair, type PublicKey } from "@solana/web3.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createSolanaGatewaySide } from "../../src/chains/solana/gateway-side.ts";
import { buildSolanaSweep, checkSolanaSweep, NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import { createSweepRelay } from "../../src/chains/solana/sweep-relay.ts";
import { ChainUnavailableError } from "../../src/gateway/ports.ts";
import { kitSigned, kitSweepInstructions } from "../support/solana-clients.ts";
import { openPrivateSolana, type startPrivateSolana } from "../support/solana-node.ts";

let node: Awaited<ReturnType<typeof startPrivateSolana>>;
let connection: Connection;
let relayer: Keypair;
let depositor: Keypair;
let mint: PublicKey;

let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ node, connection, relayer, depositor, mint, stop } = await openPrivateSolana());
}, 60_000);

afterAll(async () => {
  await stop?.();
});

const CHAIN_ID = 792703810;

/** The executor's sweep step on the private node. */
const sweepRelay = () =>
  createSweepRelay({
    chainId: CHAIN_ID,
    rpcUrl: node.info.rpcUrl,
    relayer,
    signal: new AbortController().signal,
    pollMs: 100,
  });

/** The relay of a 10 USDC sweep: 9.92 delivered, 0.08 platform fee. */
const sweepCommand = (transaction: string) => ({
  type: "RelaySolanaSweep" as const,
  transaction,
  amountIn: 10_000_000n,
  feeAmount: 80_000n,
  appFeeAmount: 0n,
  deliveredAmount: 9_920_000n,
  bridged: false,
});

const usdcOf = async (owner: PublicKey) =>
  (await getAccount(connection, getAssociatedTokenAddressSync(mint, owner, true))).amount;

it("relays the checked sweep: exact balances, the relayer pays only the fee, a retry sends nothing", async () => {
  const burner = Keypair.generate();
  const destination = Keypair.generate().publicKey;
  // The payer's deposit, and the destination's USDC account (the sweep never pays to create one).
  const burnerAta = await getOrCreateAssociatedTokenAccount(connection, depositor, mint, burner.publicKey);
  await getOrCreateAssociatedTokenAccount(connection, depositor, mint, destination);
  await transfer(
    connection,
    depositor,
    getAssociatedTokenAddressSync(mint, depositor.publicKey),
    burnerAta.address,
    depositor,
    10_000_000n,
  );
  const expected = {
    burner: burner.publicKey.toBase58(),
    feePayer: relayer.publicKey.toBase58(),
    token: mint.toBase58(),
    legs: [
      { to: destination.toBase58(), amount: 9_920_000n },
      { to: relayer.publicKey.toBase58(), amount: 80_000n },
    ],
  };
  const { blockhash } = await connection.getLatestBlockhash();
  const signedFor = (legs = expected.legs) => {
    const tx = buildSolanaSweep({ ...expected, legs, blockhash });
    tx.partialSign(burner);
    return tx.serialize({ requireAllSignatures: false }).toString("base64");
  };

  // Another destination: refused by the check, so nothing reaches the executor and nothing moves.
  const stranger = Keypair.generate().publicKey.toBase58();
  const refused = checkSolanaSweep(
    signedFor([{ to: stranger, amount: 9_920_000n }, expected.legs[1] as never]),
    expected,
  );
  expect(refused.ok).toBe(false);
  expect(await usdcOf(burner.publicKey)).toBe(10_000_000n);

  const wire = signedFor();
  expect(checkSolanaSweep(wire, expected).ok).toBe(true);
  const relayerLamports = await connection.getBalance(relayer.publicKey);
  const relayerUsdc = await usdcOf(relayer.publicKey);
  const relay = sweepRelay();
  const command = sweepCommand(wire);
  const submitted: string[] = [];
  const step = { key: "s/sweep", bump: false, onSubmitted: async (s: string) => void submitted.push(s) };
  const done = await relay(command, step);
  expect(done.gas?.feeWei).toBe(10_000n); // two signatures, 5,000 lamports each
  expect(await usdcOf(destination)).toBe(9_920_000n);
  expect(await usdcOf(burner.publicKey)).toBe(0n);
  expect(await usdcOf(relayer.publicKey)).toBe(relayerUsdc + 80_000n);
  expect(await connection.getBalance(relayer.publicKey)).toBe(relayerLamports - 10_000);
  const status = (await connection.getSignatureStatuses([done.txHash])).value[0];
  expect(status?.confirmationStatus).toBe("finalized");

  // The same command again (a retry, a restarted executor): found by its signature, not sent twice.
  const again = await relay(command, step);
  expect(again.txHash).toBe(done.txHash);
  expect(submitted).toEqual([done.txHash, done.txHash]);
  expect(await usdcOf(destination)).toBe(9_920_000n);
  expect(await connection.getBalance(relayer.publicKey)).toBe(relayerLamports - 10_000);
}, 60_000);

it("refuses a SOL sweep that would open an account below the rent-exempt minimum, before anything is sent; a dead RPC is unavailable, not a verdict", async () => {
  const sideChain = {
    chainId: CHAIN_ID,
    rpcUrl: node.info.rpcUrl,
    usdcMint: mint.toBase58(),
    feePayer: relayer.publicKey.toBase58(),
    vault: relayer.publicKey.toBase58(),
    reaches: [],
  };
  const side = createSolanaGatewaySide(sideChain);
  const burnerKey = Keypair.generate();
  const burner = burnerKey.publicKey.toBase58();
  const fresh = Keypair.generate().publicKey.toBase58();
  const { blockhash } = await connection.getLatestBlockhash();
  const minimum = BigInt(await connection.getMinimumBalanceForRentExemption(0));
  const check = (legs: { to: string; amount: bigint }[]) => {
    const expected = { burner, feePayer: relayer.publicKey.toBase58(), token: NATIVE_MINT, legs };
    const tx = buildSolanaSweep({ ...expected, blockhash });
    tx.partialSign(burnerKey);
    const wire = tx.serialize({ requireAllSignatures: false }).toString("base64");
    return side.checkSweep(wire, { burner, token: NATIVE_MINT, legs });
  };
  const fee = { to: relayer.publicKey.toBase58(), amount: 800n }; // the relayer's account exists
  const below = await check([{ to: fresh, amount: minimum - 1n }, fee]);
  expect(below).toMatchObject({ ok: false, reason: expect.stringContaining(`${minimum} lamports`) });
  expect(await check([{ to: fresh, amount: minimum }, fee])).toEqual({ ok: true });
  // An account that exists takes any amount: the relayer's own, here.
  expect(await check([{ to: relayer.publicKey.toBase58(), amount: 1n }])).toEqual({ ok: true });

  // An RPC that does not answer is the gateway's 502 (ChainUnavailableError), never a verdict.
  const dead = createSolanaGatewaySide({ ...sideChain, rpcUrl: "http://127.0.0.1:9" });
  const legs = [{ to: fresh, amount: minimum }, fee];
  const tx = buildSolanaSweep({ burner, feePayer: sideChain.feePayer, token: NATIVE_MINT, legs, blockhash });
  tx.partialSign(burnerKey);
  const wire = tx.serialize({ requireAllSignatures: false }).toString("base64");
  await expect(dead.checkSweep(wire, { burner, token: NATIVE_MINT, legs })).rejects.toBeInstanceOf(
    ChainUnavailableError,
  );
}, 60_000);

// Issue 28 item 6: a client on @solana/kit compiling v0 (docs/SOLANA.md, "What the service checks ...").
it("a kit v0 sweep is accepted by the gateway side and relayed as signed: exact balances, the relayer pays only the fee", async () => {
  const destination = Keypair.generate().publicKey;
  const burner = Keypair.generate();
  await getOrCreateAssociatedTokenAccount(connection, depositor, mint, destination);
  const burnerAta = await getOrCreateAssociatedTokenAccount(connection, depositor, mint, burner.publicKey);
  const from = getAssociatedTokenAddressSync(mint, depositor.publicKey);
  await transfer(connection, depositor, from, burnerAta.address, depositor, 10_000_000n);
  const expected = {
    burner: burner.publicKey.toBase58(),
    token: mint.toBase58(),
    legs: [
      { to: destination.toBase58(), amount: 9_920_000n },
      { to: relayer.publicKey.toBase58(), amount: 80_000n },
    ],
  };
  const feePayer = relayer.publicKey.toBase58();
  const { blockhash } = await connection.getLatestBlockhash();
  const wire = await kitSigned(
    0,
    feePayer,
    blockhash,
    await kitSweepInstructions({ ...expected, feePayer }),
    burner,
  );
  const side = createSolanaGatewaySide({
    chainId: CHAIN_ID,
    rpcUrl: node.info.rpcUrl,
    usdcMint: mint.toBase58(),
    feePayer,
    vault: feePayer,
    reaches: [],
  });
  expect(await side.checkSweep(wire, expected)).toEqual({ ok: true });

  const lamports = await connection.getBalance(relayer.publicKey);
  const relayerUsdc = await usdcOf(relayer.publicKey);
  const relay = sweepRelay();
  const command = sweepCommand(wire);
  const step = { key: "s/sweep", bump: false, onSubmitted: async () => {} };
  const done = await relay(command, step);
  expect(await usdcOf(destination)).toBe(9_920_000n);
  expect(await usdcOf(burner.publicKey)).toBe(0n);
  expect(await usdcOf(relayer.publicKey)).toBe(relayerUsdc + 80_000n);
  expect(await connection.getBalance(relayer.publicKey)).toBe(lamports - 10_000);
  // Sent as the client compiled it: a v0 transaction on chain.
  const mined = await connection.getTransaction(done.txHash, {
    commitment: "confirmed",
    maxSupportedTransactionVersion: 0,
  });
  expect(mined?.version).toBe(0);
  expect((await relay(command, step)).txHash).toBe(done.txHash);
}, 60_000);
