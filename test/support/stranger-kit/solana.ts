// The Solana family's stranger (test/e2e/stranger.e2e.test.ts): sessions on the stack's Solana node
// paying a fresh address on the EVM destination anvil, the stranger's own burner registered (with the
// bounce setup the payer library signs), payments from the stack's funded payer, and the burner-signed
// refunds and sweeps the service's routes take. The copied stealth withdrawal is sent to the stack's
// node directly: a copy needs no service to be tried, and the relayer's co-signature is what the
// service's withdrawal route adds.
import {
  createMint,
  getAccount,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  transfer,
} from "@solana/spl-token";
import {
  Keypair,
  type PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { expect } from "vitest";
import { buildSolanaRefund } from "../../../src/chains/solana/refund.ts";
import { buildStealthWithdrawal } from "../../../src/chains/solana/stealth-withdraw.ts";
import { buildSolanaSweep, NATIVE_MINT } from "../../../src/chains/solana/sweep.ts";
import { associatedTokenBalance } from "../../../src/chains/solana/token-accounts.ts";
import { createApiClient, type Session, signSolanaBounceSetup } from "../../../src/client/index.ts";
import { type Ctx, fund, tokenBalance, usdc } from "../delegate.ts";
import { requestJson } from "../http.ts";
import type { TestService } from "../service.ts";
import { sessionUntil } from "../session-poll.ts";
import { burnerRegistration, keypairOf, stackSolanaOf } from "../solana-node.ts";
import { type Case, type CopyReport, refusal, type StrangerKit, settledDown } from "./kit.ts";

type Paid = {
  id: string;
  burner: Keypair;
  dest: Address;
  terms: { fee_payer: string; sweep_to: string; fee_bps: number };
};

/** What the relayer pays to relay one refund: two signatures' fee (its own and the burner's). */
const REFUND_FEE = 10_000n;
/** The burner holds none of the asset (the gateway's read), or none of it is recorded (the session core). */
const NOTHING_THERE = /holds none of this asset|no deposit of this token/;

export function solanaStranger(svc: TestService, dst: Ctx): StrangerKit {
  const { sol, mint, payer, relayer, vault } = stackSolanaOf(svc);
  const onSolana = "solana";
  const onDst = String(dst.chain.chainId);
  const api = (path: string, body?: unknown) => requestJson(svc.url, path, { body });
  const until = (id: string, pred: (s: Session) => boolean, ms = 30_000) =>
    sessionUntil(createApiClient({ baseUrl: svc.url }), id, pred, ms);
  const lamports = async (key: PublicKey) => BigInt(await sol.getBalance(key, "confirmed"));
  const usdcOf = (owner: PublicKey) => associatedTokenBalance(sol, mint, owner);
  const blockhash = async () => (await api("/solana/blockhash")).body.blockhash as string;
  const s = {} as Record<
    "empty" | "dust" | "dustBounce" | "lateDust" | "dustOnly" | "control" | "sol" | "dustFill",
    Paid
  >;
  const fake = {} as Paid & { mint: PublicKey };
  /** The payer's wallet, holding a USDC account as a USDC refund's recipient must. */
  const wallet = Keypair.generate().publicKey;
  /** The refund address of the sessions given dust with bounce consent: a wallet with a USDC account too. */
  const dustWallet = Keypair.generate().publicKey;
  let vaultAtStart = 0n;

  /**
   * A Solana-origin session paying a fresh EVM address, the stranger's burner registered on it; with
   * `bounce`, with the bounce setup the payer library signs (what lets the relayer bounce the burner's
   * USDC once the session ended: relayed only once a deposit is recorded).
   */
  async function open(opts: { bounce?: boolean; refundTo?: PublicKey } = {}): Promise<Paid> {
    const dest = privateKeyToAddress(generatePrivateKey());
    const created = await api("/sessions/solana", {
      destination_address: dest,
      destination_chain: dst.chain.chainId,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.id as string;
    const burner = Keypair.generate();
    const setup = opts.bounce
      ? {
          bounce_setup: signSolanaBounceSetup({
            sessionId: id,
            burner,
            refundTo: (opts.refundTo ?? Keypair.generate().publicKey).toBase58(),
            relayer: relayer.toBase58(),
            mint: mint.toBase58(),
            blockhash: await blockhash(),
          }),
        }
      : {};
    const registered = await api(`/sessions/${id}/solana-burner`, {
      ...burnerRegistration(burner, id),
      ...setup,
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    return { id, burner, dest, terms: created.body.sweep };
  }

  /** The payer sends `amount` of USDC (or of `viaMint`) to `to`, opening its token account on the way. */
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

  /** The burner-signed refund of `amount` (default: its whole balance) of `token` to `to`. */
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
    return api(`/sessions/${p.id}/solana-refund`, { transaction, to: to.toBase58(), token });
  }

  /** The payer's commit of a sweep of `amount` of `token` (the delivery to the vault, the fee to the relayer). */
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
    return api(`/sessions/${p.id}/commit`, {
      transaction: tx.serialize({ requireAllSignatures: false }).toString("base64"),
    });
  }
  return {
    family: "Solana",

    async setUp() {
      await getOrCreateAssociatedTokenAccount(sol, payer, mint, wallet);
      await getOrCreateAssociatedTokenAccount(sol, payer, mint, dustWallet);
      // The fill of the real payment that follows the fake mint is paid out of this inventory.
      await fund(dst, dst.chain.relayer.address, dst.chain.usdc, usdc(1));
      vaultAtStart = await usdcOf(vault);
      const [empty, dust, dustBounce, lateDust, dustOnly, control, solS, dustFill] = await Promise.all([
        open({ bounce: true }),
        open(),
        // Their refund address holds a USDC account, so nothing but the dust rule stops a bounce.
        open({ bounce: true, refundTo: dustWallet }),
        open({ bounce: true, refundTo: dustWallet }),
        ...Array.from({ length: 4 }, () => open()),
      ]);
      Object.assign(s, { empty, dust, dustBounce, lateDust, dustOnly, control, sol: solS, dustFill });
      await Promise.all([
        // Exactly the accepted minimum (0.01 USDC): a deposit, but its refund would be dust (floor: the minimum).
        payUsdc(s.dust.burner.publicKey, 10_000n),
        payUsdc(s.dustOnly.burner.publicKey, 6_000n), // below the minimum: an unsupported deposit only
        payUsdc(s.control.burner.publicKey, usdc(1)),
        paySol(s.sol.burner.publicKey, 50_000_000n), // 0.05 SOL
        payUsdc(s.dustFill.burner.publicKey, usdc(0.05)),
      ]);
      await Promise.all(
        [s.dust, s.control, s.sol, s.dustFill].map((p) => until(p.id, (x) => x.status === "detected")),
      );
    },

    async expired() {
      await Promise.all(Object.values(s).map((p) => until(p.id, settledDown, 60_000)));
    },

    async nativeToOtherFamily() {
      const p = s.sol;
      const inventory = await tokenBalance(dst, dst.chain.relayer.address);
      const vaultLamports = await lamports(vault);
      return {
        refusals: [
          refusal(
            "0.05 SOL to an EVM address",
            () => commit(p, 50_000_000n, NATIVE_MINT),
            409,
            /settles only on its own chain/,
          ),
        ],
        async check() {
          expect(await until(p.id, () => true)).toMatchObject({ status: "detected", sweep_tx: null });
          expect(await tokenBalance(dst, dst.chain.relayer.address)).toBe(inventory);
          expect(await lamports(p.burner.publicKey)).toBe(50_000_000n);
          expect(await lamports(vault)).toBe(vaultLamports);
        },
      };
    },

    async dustFastFill() {
      const p = s.dustFill;
      return {
        refusals: [
          refusal(
            "0.05 USDC to an EVM address",
            () => commit(p, usdc(0.05)),
            409,
            /below its minimum of 100000: refund it instead/,
          ),
        ],
        async check() {
          expect(await usdcOf(p.burner.publicKey)).toBe(usdc(0.05));
        },
      };
    },

    async registerWithoutDeposit() {
      const opened: Paid[] = [];
      return {
        refusals: [],
        async quiet() {
          for (let i = 0; i < 3; i++) opened.push(await open({ bounce: true }));
        },
        async check() {
          for (const p of opened) {
            // Registration (its bounce setup included) relayed nothing and opened no account.
            expect(await sol.getAccountInfo(p.burner.publicKey)).toBeNull();
            expect(await usdcOf(p.burner.publicKey)).toBe(0n);
            expect(await until(p.id, () => true)).toMatchObject({ status: "pending", deposits: [] });
          }
        },
      };
    },

    async fakeToken() {
      Object.assign(fake, await open());
      return {
        refusals: [],
        async quiet() {
          // The stranger's own mint with USDC's decimals, minted to the burner.
          fake.mint = await createMint(sol, payer, payer.publicKey, null, 6);
          const into = await getOrCreateAssociatedTokenAccount(sol, payer, fake.mint, fake.burner.publicKey);
          await mintTo(sol, payer, fake.mint, into.address, payer, usdc(5));
          await until(fake.id, (x) => x.unsupported_deposits.length > 0);
        },
        async check() {
          expect(await until(fake.id, () => true)).toMatchObject({
            status: "pending",
            detected_token: null,
            deposits: [],
            refunds: [],
            unsupported_deposits: [
              { token: fake.mint.toBase58(), amount: "5000000", reason: "token_not_accepted" },
            ],
          });
        },
      };
    },

    async fakeTokenThenRealPayment() {
      const amount = usdc(1);
      let settled: Session | undefined;
      return {
        refusals: [],
        control: {
          what: "the USDC that follows: its sweep relayed to the vault, the fill paid on the EVM destination",
          transactions: { [onSolana]: 1, [onDst]: 1 },
          native: { [onSolana]: REFUND_FEE },
          async run() {
            await payUsdc(fake.burner.publicKey, amount);
            await until(fake.id, (x) => x.status === "detected");
            const answer = await commit(fake, amount);
            expect(answer.status, JSON.stringify(answer.body)).toBe(200);
            settled = await until(fake.id, (x) => x.status === "swept" || x.status === "failed", 60_000);
          },
        },
        async check() {
          expect(settled).toMatchObject({ status: "swept", outcome: "succeeded" });
          // The destination got what the vault received, and the stranger's tokens are still the burner's.
          const delivered = amount - (amount * BigInt(fake.terms.fee_bps)) / 10_000n;
          expect(await tokenBalance(dst, fake.dest)).toBe(delivered);
          expect(await usdcOf(vault)).toBe(vaultAtStart + delivered);
          expect(await associatedTokenBalance(sol, fake.mint, fake.burner.publicKey)).toBe(usdc(5));
        },
      };
    },

    async refundBeforeDeposit() {
      const p = s.empty;
      return {
        refusals: [
          refusal("USDC", () => refund(p, wallet, mint.toBase58(), 1n), 409, NOTHING_THERE),
          refusal("SOL", () => refund(p, wallet, NATIVE_MINT, 1n), 409, NOTHING_THERE),
          // After one (the control's, refunded later), an asset the burner does not hold: 409 as well.
          refusal(
            "SOL on a USDC session",
            () => refund(s.control, wallet, NATIVE_MINT, 1n),
            409,
            /holds none of this asset/,
          ),
        ],
        async check() {
          expect(await sol.getAccountInfo(p.burner.publicKey)).toBeNull();
        },
      };
    },

    async selfRefunds() {
      const p = s.control;
      const why = /not the burner or the relayer/;
      return {
        refusals: [
          ...Array.from({ length: 3 }, (_, i) =>
            refusal(`to the burner itself #${i + 1}`, () => refund(p, p.burner.publicKey), 400, why),
          ),
          refusal("to the relayer", () => refund(p, relayer), 400, why),
          refusal(
            "less than the whole balance",
            () => refund(p, wallet, mint.toBase58(), usdc(0.5)),
            400,
            /whole balance \(1000000\)/,
          ),
        ],
        async check() {
          expect(await usdcOf(p.burner.publicKey)).toBe(usdc(1));
        },
      };
    },

    async dustRefunds() {
      expect((await until(s.dust.id, () => true)).deposits).toMatchObject([{ amount: "10000" }]);
      const only = await until(s.dustOnly.id, () => true);
      expect(only.deposits).toEqual([]);
      expect(only.unsupported_deposits).toMatchObject([{ amount: "6000", reason: "below_minimum" }]);
      return {
        refusals: [
          refusal(
            "a 0.01 USDC deposit (at the floor)",
            () => refund(s.dust, wallet),
            409,
            /a refund of 10000 is dust/,
          ),
          refusal(
            "a 0.006 USDC one (below the minimum)",
            () => refund(s.dustOnly, wallet),
            409,
            /a refund of 6000 is dust/,
          ),
        ],
        async check() {
          expect(await usdcOf(s.dust.burner.publicKey)).toBe(10_000n);
          expect(await usdcOf(s.dustOnly.burner.publicKey)).toBe(6_000n);
        },
      };
    },

    dustWithConsent() {
      // The refund rulebook calls 0.01 USDC dust ("a refund of 10000 is dust"): neither the setup's
      // relay nor a bounce may be paid for it.
      const p = s.dustBounce;
      return {
        pay: () => payUsdc(p.burner.publicKey, 10_000n),
        check: () => dustKept(p),
      };
    },

    async lateDust() {
      const p = s.lateDust;
      return {
        async quiet() {
          await payUsdc(p.burner.publicKey, 10_000n);
          await until(p.id, (x) => x.deposits.length === 1 && settledDown(x));
        },
        refusals: [],
        check: () => dustKept(p),
      };
    },

    async realRefund() {
      const p = s.control;
      return {
        refusals: [],
        control: {
          what: "the 1 USDC deposited, after expiry",
          transactions: { [onSolana]: 1 },
          native: { [onSolana]: REFUND_FEE },
          async run() {
            const done = await refund(p, wallet);
            expect(done.status, JSON.stringify(done.body)).toBe(200);
            expect(done.body).toMatchObject({ id: p.id, amount: "1000000", to: wallet.toBase58() });
          },
        },
        async check() {
          expect(await usdcOf(wallet)).toBe(usdc(1));
          expect(await usdcOf(p.burner.publicKey)).toBe(0n);
        },
      };
    },

    async refundAllLoop() {
      // Solana has no refund-all route: the loop is the same refund asked again and again, and dust
      // payments (each below the minimum, so no accepted deposit) that sum above the floor bring no new deposit.
      const p = s.control;
      return {
        async quiet() {
          await payUsdc(p.burner.publicKey, 6_000n);
          await payUsdc(p.burner.publicKey, 6_000n);
        },
        refusals: Array.from({ length: 3 }, (_, i) =>
          refusal(`refund #${i + 1}`, () => refund(p, wallet), 409, /no deposit of this asset arrived/),
        ),
        async check() {
          expect((await until(p.id, () => true)).refunds).toHaveLength(1);
          expect(await usdcOf(p.burner.publicKey)).toBe(12_000n);
        },
      };
    },

    async fakeTokenRefund() {
      // A Solana refund moves USDC or SOL only: the relayer never pays to move a token it never accepted.
      const why = /token: the USDC mint/;
      return {
        refusals: [
          refusal("of the fake mint", () => refund(fake, wallet, fake.mint.toBase58(), usdc(5)), 400, why),
          refusal(
            "named on another session",
            () => refund(s.control, wallet, fake.mint.toBase58(), usdc(5)),
            400,
            why,
          ),
        ],
      };
    },

    async nativeToOtherFamilyReturned(): Promise<Case> {
      const p = s.sol;
      const payerWallet = Keypair.generate().publicKey;
      const inventory = await tokenBalance(dst, dst.chain.relayer.address);
      const vaultBefore = await usdcOf(vault);
      return {
        refusals: [],
        control: {
          what: "the refused SOL back to the payer in kind",
          transactions: { [onSolana]: 1 },
          native: { [onSolana]: REFUND_FEE },
          async run() {
            const done = await refund(p, payerWallet, NATIVE_MINT);
            expect(done.status, JSON.stringify(done.body)).toBe(200);
          },
        },
        async check() {
          expect(await lamports(payerWallet)).toBe(50_000_000n);
          // The vault took nothing and the EVM inventory paid nothing for the SOL.
          expect(await usdcOf(vault)).toBe(vaultBefore);
          expect(await tokenBalance(dst, dst.chain.relayer.address)).toBe(inventory);
        },
      };
    },

    copiedStealthWithdrawal: copySolanaStealthWithdrawal,
    copiedStealthTransactions: { [onSolana]: 1 },
  };

  /** The dust is still the burner's: no bounce asked, and the setup never relayed (no delegate on its account). */
  async function dustKept(p: Paid) {
    const b = p.burner.publicKey;
    expect(await until(p.id, () => true)).toMatchObject({
      status: "expired",
      deposits: [{ amount: "10000" }],
      refunds: [],
    });
    expect(await usdcOf(b)).toBe(10_000n);
    expect((await getAccount(sol, getAssociatedTokenAddressSync(mint, b))).delegate).toBeNull();
  }

  async function copySolanaStealthWithdrawal(): Promise<CopyReport> {
    const held = usdc(1);
    const stealth = Keypair.generate();
    const stranger = Keypair.generate();
    const destination = Keypair.generate().publicKey;
    await payUsdc(stealth.publicKey, held);
    await paySol(stranger.publicKey, 10_000_000n);
    const signed = () => {
      const tx = buildStealthWithdrawal({
        stealthAddress: stealth.publicKey.toBase58(),
        destination: destination.toBase58(),
        feePayer: relayer.toBase58(),
        mint: mint.toBase58(),
        amount: held,
        blockhash: blockhashNow,
      });
      tx.partialSign(stealth);
      return tx;
    };
    const blockhashNow = await blockhash();
    const landed = (send: Promise<unknown>) =>
      send.then(
        () => true,
        (err: unknown) => {
          // Refused by the node's signature check, not lost for another reason.
          expect(String(err)).toMatch(/signature/i);
          return false;
        },
      );
    const wire = (tx: Transaction) => tx.serialize({ requireAllSignatures: false, verifySignatures: false });
    // Sent as it is: the fee payer's (relayer's) signature is missing.
    const asIs = await landed(sol.sendRawTransaction(wire(signed())));
    // With the stranger as fee payer: the stealth signature no longer holds for the changed message.
    const rewritten = signed();
    const stealthSignature = rewritten.signatures.find((x) =>
      x.publicKey.equals(stealth.publicKey),
    )?.signature;
    rewritten.feePayer = stranger.publicKey;
    rewritten.partialSign(stranger);
    if (stealthSignature) rewritten.addSignature(stealth.publicKey, stealthSignature);
    const asFeePayer = await landed(sol.sendRawTransaction(wire(rewritten)));

    // The relayer's own: the same stealth-signed withdrawal, co-signed as the service's route does.
    const stack = svc.stack.solana;
    if (!stack) throw new Error("the local stack has no Solana node");
    const ours = signed();
    ours.partialSign(keypairOf(stack.relayerKey));
    const signature = await sol.sendRawTransaction(ours.serialize());
    await sol.confirmTransaction(
      { signature, blockhash: blockhashNow, lastValidBlockHeight: (await sol.getBlockHeight()) + 150 },
      "confirmed",
    );
    const touching = await sol.getSignaturesForAddress(stealth.publicKey, {}, "confirmed");
    let relayerTransactions = 0;
    for (const t of touching) {
      const tx = await sol.getTransaction(t.signature, {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
      });
      if (tx?.transaction.message.staticAccountKeys[0]?.equals(relayer)) relayerTransactions += 1;
    }
    return {
      copies: [
        { what: "sent as it is", landed: asIs },
        { what: "with the stranger as fee payer", landed: asFeePayer },
      ],
      strangerUsdc: await usdcOf(stranger.publicKey),
      relayerTransactions,
      // A Solana withdrawal pays the relayer no fee: it pays the fee, and the closed account's rent
      // repays the destination account's.
      relayerFeeEarned: 0n,
      signedFee: 0n,
      held,
      left: await usdcOf(stealth.publicKey),
      delivered: await usdcOf(destination),
    };
  }
}
