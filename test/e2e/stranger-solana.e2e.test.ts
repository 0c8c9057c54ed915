// The Solana family's stranger suite (issue 27), the cases of the EVM stranger-*.e2e files on the
// local stack: Kafka, Cassandra, the local Solana node and EVM destination anvil, every role in this
// process. A stranger holds its own burner key and tries to make the relayer pay: each abusive request
// is a 4xx that says why and the relayer's lamports (read at "confirmed") do not move; each control
// costs exactly its fee. Every session is opened and paid at once in beforeAll, so their TTL runs
// together; the cases that need an ended session wait for it. The copied stealth withdrawal, the
// remaining case of the list, is test/e2e/stealth-solana.e2e.test.ts's.
import { createMint, getOrCreateAssociatedTokenAccount, mintTo } from "@solana/spl-token";
import { Keypair } from "@solana/web3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NATIVE_MINT } from "../../src/chains/solana/sweep.ts";
import { type Ctx, setUpChains, tokenBalance, usdc } from "../support/delegate.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { type Paid, solanaStranger } from "../support/solana-stranger.ts";

const T = 60_000;
const TTL_SECONDS = 20;
const DEST_CHAIN = 31338;
/** What the relayer pays for one relayed refund: two signatures' fee (its own and the burner's). */
const REFUND_FEE = 10_000n;

let svc: TestService;
let dst: Ctx;
let k: ReturnType<typeof solanaStranger>;
/** The relayer's lamports and the vault's USDC before any session: what the controls are counted from. */
let atStart: { relayer: bigint; vaultUsdc: bigint };
/** The stranger's sessions, one per case, opened together. */
const s = {} as Record<"empty" | "dust" | "dustOnly" | "control" | "fake" | "sol" | "dustFill", Paid>;

/** Every transaction the relayer has sent on the EVM destination, mined or pending. */
const evmNonce = () =>
  dst.client.getTransactionCount({ address: dst.chain.relayer.address, blockTag: "pending" });

/** Runs `act` and proves the relayer paid exactly `fee` lamports for it (0: nothing) and sent nothing on the EVM chain. */
async function relayerPays(fee: bigint, act: () => Promise<void>): Promise<void> {
  const before = { lamports: await k.lamports(k.relayer), nonce: await evmNonce() };
  await act();
  // A relay would land within a few slots: wait before counting.
  await new Promise((r) => setTimeout(r, 2_000));
  expect(before.lamports - (await k.lamports(k.relayer))).toBe(fee);
  expect(await evmNonce()).toBe(before.nonce);
}
/**
 * The route's answer for a session no accepted deposit has reached yet (its source_chain_id is null
 * until one is detected): refused before the refund rulebook is consulted.
 */
/** The burner holds none of the asset (the gateway's read), or none of it is recorded (the session core). */
const NOTHING_THERE = /holds none of this asset|no deposit of this token/;
const refused = (answer: { status: number; body: Record<string, unknown> }, status: number, why: RegExp) => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.error).toMatch(why);
};

beforeAll(async () => {
  dst = (await setUpChains())("destination");
  svc = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { SESSION_TTL_SECONDS: String(TTL_SECONDS), RATE_LIMIT_BURST: "100000" },
  });
  k = solanaStranger(svc, DEST_CHAIN);
  const { sol, payer, openSession, payUsdc, paySol } = k;
  atStart = { relayer: await k.lamports(k.relayer), vaultUsdc: await k.usdcOf(k.vault) };
  // The fake mint: the stranger's own token with USDC's decimals, minted to its burner below.
  const fakeMint = await createMint(sol, payer, payer.publicKey, null, 6);
  const [empty, dust, dustOnly, control, fake, solS, dustFill] = await Promise.all(
    Array.from({ length: 7 }, () => openSession()),
  );
  Object.assign(s, { empty, dust, dustOnly, control, fake, sol: solS, dustFill });
  const fakeInto = await getOrCreateAssociatedTokenAccount(sol, payer, fakeMint, s.fake.burner.publicKey);
  await Promise.all([
    // Exactly the accepted minimum (0.01 USDC): a deposit, but its refund would be dust (floor: the minimum).
    payUsdc(s.dust.burner.publicKey, 10_000n),
    payUsdc(s.dustOnly.burner.publicKey, 6_000n), // below the minimum: an unsupported deposit only
    payUsdc(s.control.burner.publicKey, usdc(1)),
    mintTo(sol, payer, fakeMint, fakeInto.address, payer, usdc(5)),
    paySol(s.sol.burner.publicKey, 50_000_000n), // 0.05 SOL
    payUsdc(s.dustFill.burner.publicKey, usdc(0.05)),
  ]);
  await Promise.all(
    [s.dust, s.control, s.sol, s.dustFill].map((p) => k.until(p.id, (x) => x.status === "detected")),
  );
}, 240_000);
afterAll(async () => {
  await svc?.stop();
});

describe("a stranger's fast fills (committed before the sessions expire)", () => {
  it(
    "0.05 SOL to an EVM destination: 409 at commit, nothing spent on either chain, no USDC paid out of the inventory",
    async () => {
      const before = {
        inventory: await tokenBalance(dst, dst.chain.relayer.address),
        vault: await k.lamports(k.vault),
      };
      await relayerPays(0n, async () =>
        refused(await k.commit(s.sol, 50_000_000n, NATIVE_MINT), 409, /settles only on its own chain/),
      );
      expect(await k.until(s.sol.id, () => true)).toMatchObject({ status: "detected", sweep_tx: null });
      expect(await tokenBalance(dst, dst.chain.relayer.address)).toBe(before.inventory);
      expect(await k.lamports(k.vault)).toBe(before.vault);
    },
    T,
  );

  it(
    "a dust fast fill (0.05 USDC): 409 below the minimum, nothing relayed on Solana, nothing sent on the EVM chain",
    async () => {
      await relayerPays(0n, async () =>
        refused(await k.commit(s.dustFill, usdc(0.05)), 409, /below its minimum of 100000/),
      );
      expect(await k.usdcOf(s.dustFill.burner.publicKey)).toBe(usdc(0.05));
    },
    T,
  );
});

describe("a stranger's refunds (once the sessions expired)", () => {
  const wallet = Keypair.generate().publicKey;
  beforeAll(async () => {
    // The payer's wallet holds a USDC account, as a USDC refund's recipient must.
    await getOrCreateAssociatedTokenAccount(k.sol, k.payer, k.mint, wallet);
    await Promise.all(Object.values(s).map((p) => k.until(p.id, (x) => x.status === "expired", T)));
  }, T + 10_000);

  it(
    "register without deposit, then refunds before any deposit: nothing opened, 409, 0 lamports",
    async () => {
      const p = s.empty;
      // Six registrations, fake mint, two refused commits, every session expired: not a lamport yet.
      expect(await k.lamports(k.relayer)).toBe(atStart.relayer);
      // Registration relayed nothing and opened no account: the burner still has none.
      expect(await k.sol.getAccountInfo(p.burner.publicKey)).toBeNull();
      // Before any deposit the burner holds nothing, and nothing is recorded to refund: 409.
      await relayerPays(0n, async () => {
        refused(await k.refund(p, wallet, k.mint.toBase58(), 1n), 409, NOTHING_THERE);
        refused(await k.refund(p, wallet, NATIVE_MINT, 1n), 409, NOTHING_THERE);
        // After one (the control's, refunded below), an asset the burner does not hold: 409 as well.
        refused(await k.refund(s.control, wallet, NATIVE_MINT, 1n), 409, /holds none of this asset/);
      });
    },
    T,
  );

  it(
    "self-refunds: to the burner itself or to the relayer, or less than the whole balance: 400, 0 lamports",
    async () => {
      const p = s.control;
      await relayerPays(0n, async () => {
        for (let i = 0; i < 3; i++)
          refused(await k.refund(p, p.burner.publicKey), 400, /not the burner or the relayer/);
        refused(await k.refund(p, k.relayer), 400, /not the burner or the relayer/);
        refused(await k.refund(p, wallet, k.mint.toBase58(), usdc(0.5)), 400, /whole balance \(1000000\)/);
      });
      expect(await k.usdcOf(p.burner.publicKey)).toBe(usdc(1));
    },
    T,
  );

  it(
    "dust refunds: of a 0.01 USDC deposit (at the floor), of a 0.006 USDC one (below the minimum): 409, 0 lamports",
    async () => {
      expect((await k.until(s.dust.id, () => true)).deposits).toMatchObject([{ amount: "10000" }]);
      const only = await k.until(s.dustOnly.id, () => true);
      expect(only.deposits).toEqual([]);
      expect(only.unsupported_deposits).toMatchObject([{ amount: "6000", reason: "below_minimum" }]);
      await relayerPays(0n, async () => {
        refused(await k.refund(s.dust, wallet), 409, /a refund of 10000 is dust/);
        refused(await k.refund(s.dustOnly, wallet), 409, /a refund of 6000 is dust/);
      });
      expect(await k.usdcOf(s.dust.burner.publicKey)).toBe(10_000n);
      expect(await k.usdcOf(s.dustOnly.burner.publicKey)).toBe(6_000n);
    },
    T,
  );

  it(
    "a fake mint: never detected, never refunded at the relayer's cost (400), 0 lamports",
    async () => {
      const p = s.fake;
      const session = await k.until(p.id, () => true);
      expect(session.deposits).toEqual([]);
      expect(session.refunds).toEqual([]);
      const fakeMint = session.unsupported_deposits[0]?.token ?? "";
      expect(session.unsupported_deposits).toMatchObject([{ reason: "token_not_accepted" }]);
      expect(fakeMint).not.toBe(k.mint.toBase58());
      await relayerPays(0n, async () => {
        refused(await k.refund(p, wallet, fakeMint, usdc(5)), 400, /token: the USDC mint/);
        // Named on a session the route takes: not a token it refunds.
        refused(await k.refund(s.control, wallet, fakeMint, usdc(5)), 400, /token: the USDC mint/);
      });
    },
    T,
  );

  it(
    "control: a real USDC refund after expiry is relayed for exactly its fee (10,000 lamports)",
    async () => {
      const p = s.control;
      await relayerPays(REFUND_FEE, async () => {
        const done = await k.refund(p, wallet);
        expect(done.status, JSON.stringify(done.body)).toBe(200);
        expect(done.body).toMatchObject({ id: p.id, amount: "1000000", to: wallet.toBase58() });
      });
      expect(await k.usdcOf(wallet)).toBe(usdc(1));
      expect(await k.usdcOf(p.burner.publicKey)).toBe(0n);
    },
    T,
  );

  it(
    "a refund loop: dust deposits that sum above the floor bring no new deposit: 409 no_new_deposit every time, 0 lamports",
    async () => {
      const p = s.control;
      // Two dust payments (each below the minimum, so no accepted deposit) hold 0.012 USDC, above the floor.
      await k.payUsdc(p.burner.publicKey, 6_000n);
      await k.payUsdc(p.burner.publicKey, 6_000n);
      await relayerPays(0n, async () => {
        for (let i = 0; i < 3; i++)
          refused(await k.refund(p, wallet), 409, /no deposit of this asset arrived/);
      });
      expect((await k.until(p.id, () => true)).refunds).toHaveLength(1);
      expect(await k.usdcOf(p.burner.publicKey)).toBe(12_000n);
    },
    T,
  );

  it(
    "the refused SOL goes back to the payer in kind: relayed for exactly its fee, the vault took nothing, the EVM inventory paid nothing",
    async () => {
      const p = s.sol;
      const payerWallet = Keypair.generate().publicKey;
      const inventory = await tokenBalance(dst, dst.chain.relayer.address);
      await relayerPays(REFUND_FEE, async () => {
        const done = await k.refund(p, payerWallet, NATIVE_MINT);
        expect(done.status, JSON.stringify(done.body)).toBe(200);
      });
      expect(await k.lamports(payerWallet)).toBe(50_000_000n);
      expect(await k.usdcOf(k.vault)).toBe(atStart.vaultUsdc);
      expect(await tokenBalance(dst, dst.chain.relayer.address)).toBe(inventory);
    },
    T,
  );

  it("in all, the relayer paid exactly the two controls' fees", async () => {
    expect(atStart.relayer - (await k.lamports(k.relayer))).toBe(2n * REFUND_FEE);
  });
});
