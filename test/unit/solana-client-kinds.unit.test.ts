import { AccountRole, address, type Instruction } from "@solana/kit";
import { getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  AddressLookupTableAccount,
  Keypair,
  type PublicKey,
  type Transaction,
  VersionedTransaction,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { buildBounceSetup, checkBounceSetup } from "../../src/chains/solana/bounce-setup.ts";
import { fullySigned } from "../../src/chains/solana/client-transaction.ts";
import { buildSolanaRefund, checkSolanaRefund } from "../../src/chains/solana/refund.ts";
import {
  buildSolanaSweep,
  checkSolanaSweep,
  NATIVE_MINT,
  type SweepParams,
} from "../../src/chains/solana/sweep.ts";
import {
  ata,
  kitBounceSetupInstructions,
  kitSigned,
  kitSweepInstructions,
  web3Versioned,
} from "../support/solana-clients.ts";

// Issue 28 item 6: the service accepts a sweep, refund or bounce setup by what it does, whichever
// client compiled it (web3.js legacy, web3.js VersionedTransaction legacy or v0, @solana/kit legacy
// or v0), and refuses each tampered variant, whichever client compiled that. Fixed keys, so the
// account orders compared below are the same on every run.

const key = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n));
const burner = key(1);
const relayer = key(2);
const destination = key(3).publicKey.toBase58();
const stranger = key(4);
const MINT = key(5).publicKey.toBase58();
const OTHER_MINT = key(6).publicKey.toBase58();
const refundTo = key(7).publicKey.toBase58();
const BLOCKHASH = key(8).publicKey.toBase58();
const sessionId = "0b6d3f0e-2a41-4c1f-9d3a-5d0c2b7f1e11";

type Sweep = Omit<SweepParams, "blockhash">;
const usdc: Sweep = {
  burner: burner.publicKey.toBase58(),
  feePayer: relayer.publicKey.toBase58(),
  token: MINT,
  legs: [
    { to: destination, amount: 9_920_000n },
    { to: relayer.publicKey.toBase58(), amount: 80_000n },
  ],
};
const sol: Sweep = { ...usdc, token: NATIVE_MINT };
const flowD: Sweep = { ...usdc, openFirstLeg: true };
const refund = { ...usdc, to: refundTo, amount: 7_000_000n };
const setup = {
  sessionId,
  burner: burner.publicKey,
  relayer: relayer.publicKey,
  mint: key(5).publicKey,
};

/** kit's bounce setup for this session, with `over` changed. */
const kitSetup = async (over: Partial<Parameters<typeof kitBounceSetupInstructions>[0]> = {}) =>
  kitBounceSetupInstructions({
    sessionId,
    burner: usdc.burner,
    refundTo,
    relayer: usdc.feePayer,
    mint: MINT,
    ...over,
  });

/** One transaction kind: the service's check, web3.js's build of it, and kit's instructions for it. */
interface Kind {
  name: string;
  check: (
    wire: string,
  ) => { ok: true; transaction: { sign: (s: Keypair[]) => void } } | { ok: false; reason: string };
  web3: () => Transaction;
  kit: () => Promise<Instruction[]>;
  /**
   * Whether the clients list its accounts in more than one order. Not the SOL sweep's: each of its
   * roles holds one account. Not the setup's: its two read-only accounts are the Memo and Token
   * programs, met and sorted in the same order.
   */
  reorders: boolean;
}

const kinds: Kind[] = [
  ...(
    [
      ["USDC sweep", usdc],
      ["SOL sweep", sol],
      ["Flow D sweep opening the first leg's account", flowD],
    ] as const
  ).map(([name, p]) => ({
    name,
    check: (wire: string) => checkSolanaSweep(wire, p),
    web3: () => buildSolanaSweep({ ...p, blockhash: BLOCKHASH }),
    kit: () => kitSweepInstructions(p),
    reorders: p.token !== NATIVE_MINT,
  })),
  {
    name: "payer's refund",
    check: (wire) => checkSolanaRefund(wire, refund),
    web3: () => buildSolanaRefund({ ...refund, blockhash: BLOCKHASH }),
    kit: () => kitSweepInstructions({ ...refund, legs: [{ to: refund.to, amount: refund.amount }] }),
    reorders: true,
  },
  {
    name: "bounce setup",
    check: (wire) => checkBounceSetup(wire, setup),
    web3: () => buildBounceSetup({ ...setup, refundTo: key(7).publicKey, blockhash: BLOCKHASH }),
    kit: () => kitSetup(),
    reorders: false,
  },
];

const accountOrder = (wire: string) =>
  VersionedTransaction.deserialize(Buffer.from(wire, "base64"))
    .message.staticAccountKeys.map((k) => k.toBase58())
    .join(" ");

const web3Legacy = (tx: Transaction, signer = burner) => {
  tx.partialSign(signer);
  return tx.serialize({ requireAllSignatures: false }).toString("base64");
};

describe.each(kinds)("the $name, by the client that built it", (kind) => {
  it("is accepted from web3.js legacy, web3.js VersionedTransaction (legacy, v0) and kit (legacy, v0)", async () => {
    const wires = {
      "web3.js Transaction": web3Legacy(kind.web3()),
      "web3.js VersionedTransaction legacy": web3Versioned(kind.web3(), "legacy", burner),
      "web3.js VersionedTransaction v0": web3Versioned(kind.web3(), 0, burner),
      "kit legacy": await kitSigned("legacy", usdc.feePayer, BLOCKHASH, await kind.kit(), burner),
      "kit v0": await kitSigned(0, usdc.feePayer, BLOCKHASH, await kind.kit(), burner),
    };
    // Another order of the same accounts (web3.js's TransactionMessage keeps them in the order met, its
    // Transaction and kit sort them): a comparison of bytes would refuse some of these.
    const orders = new Set(Object.values(wires).map(accountOrder));
    expect(orders.size > 1).toBe(kind.reorders);
    for (const [client, wire] of Object.entries(wires)) {
      const checked = kind.check(wire);
      expect({ client, reason: checked.ok ? null : checked.reason }).toEqual({ client, reason: null });
      if (!checked.ok) continue;
      // The relayer co-signs the bytes as they came: the burner's signature still holds.
      const tx = checked.transaction as Parameters<typeof fullySigned>[0];
      tx.sign([relayer]);
      expect(fullySigned(tx)).toBe(true);
    }
  });
});

const COMPUTE_BUDGET = address("ComputeBudget111111111111111111111111111111");
const priorityFee: Instruction = {
  programAddress: COMPUTE_BUDGET,
  accounts: [],
  data: new Uint8Array([3, 1, 0, 0, 0, 0, 0, 0, 0]), // SetComputeUnitPrice(1): the fee payer pays more
};

/** kit's USDC sweep instructions with one changed by `change` (index `at`). */
async function kitChanged(at: number, change: (ix: Instruction) => Instruction, p: Sweep = usdc) {
  const ixs = await kitSweepInstructions(p);
  return ixs.map((ix, i) => (i === at ? change(ix) : ix));
}
const withAccounts = (ix: Instruction, accounts: NonNullable<Instruction["accounts"]>): Instruction => ({
  ...ix,
  accounts,
});

describe("a tampered sweep is refused, whichever client built it", () => {
  const kitV0 = async (ixs: Instruction[], feePayer = usdc.feePayer, signer: Keypair | null = burner) =>
    kitSigned(0, feePayer, BLOCKHASH, ixs, signer);

  it.each<[string, () => Promise<string>]>([
    [
      "an extra instruction (a priority fee the relayer would pay)",
      async () => kitV0([priorityFee, ...(await kitSweepInstructions(usdc))]),
    ],
    ["another fee payer", async () => kitV0(await kitSweepInstructions(usdc), stranger.publicKey.toBase58())],
    [
      "a changed amount",
      async () =>
        kitV0(
          await kitSweepInstructions({
            ...usdc,
            legs: [{ to: destination, amount: 9_920_001n }, usdc.legs[1] as never],
          }),
        ),
    ],
    [
      "another recipient",
      async () =>
        kitV0(
          await kitSweepInstructions({
            ...usdc,
            legs: [{ to: stranger.publicKey.toBase58(), amount: 9_920_000n }, usdc.legs[1] as never],
          }),
        ),
    ],
    ["another mint", async () => kitV0(await kitSweepInstructions({ ...usdc, token: OTHER_MINT }))],
    [
      "the relayer's own USDC moved, the relayer as its owner",
      async () =>
        kitV0(
          await kitChanged(0, (ix) =>
            withAccounts(ix, [
              { address: (ix.accounts ?? [])[0]?.address ?? address(MINT), role: AccountRole.WRITABLE },
              { address: address(MINT), role: AccountRole.READONLY },
              { address: (ix.accounts ?? [])[2]?.address ?? address(MINT), role: AccountRole.WRITABLE },
              { address: address(usdc.feePayer), role: AccountRole.READONLY_SIGNER },
            ]),
          ),
        ),
    ],
    [
      "one more signer on a transfer",
      async () =>
        // Signed by the burner only: the stranger's slot stays empty, as a client would send it.
        kitV0(
          await kitChanged(0, (ix) =>
            withAccounts(ix, [
              ...(ix.accounts ?? []),
              { address: address(stranger.publicKey.toBase58()), role: AccountRole.READONLY_SIGNER },
            ]),
          ),
        ),
    ],
    [
      "the mint made writable (same instructions, another flag)",
      async () =>
        kitV0(
          await kitChanged(0, (ix) =>
            withAccounts(
              ix,
              (ix.accounts ?? []).map((a) => (a.address === MINT ? { ...a, role: AccountRole.WRITABLE } : a)),
            ),
          ),
        ),
    ],
    [
      "the Flow D account opened after the transfer",
      async () => {
        const [open, ...transfers] = await kitSweepInstructions(flowD);
        return kitV0([...transfers, open as Instruction]);
      },
    ],
    ["no burner signature", async () => kitV0(await kitSweepInstructions(usdc), usdc.feePayer, null)],
    [
      "a signature by the burner over other bytes",
      async () => {
        const wire = Buffer.from(await kitV0(await kitSweepInstructions(usdc)), "base64");
        wire[wire.length - 1] = (wire[wire.length - 1] ?? 0) ^ 1; // the last TransferChecked's decimals
        return wire.toString("base64");
      },
    ],
    [
      "a trailing byte (not the canonical encoding)",
      async () =>
        Buffer.concat([
          Buffer.from(await kitV0(await kitSweepInstructions(usdc)), "base64"),
          Buffer.from([0]),
        ]).toString("base64"),
    ],
  ])("refuses %s", async (what, build) => {
    const expected = what.startsWith("the Flow D") ? flowD : usdc;
    expect(checkSolanaSweep(await build(), expected).ok).toBe(false);
  });

  it("refuses a v0 sweep whose accounts come from an address lookup table", () => {
    const destinationAccount = getAssociatedTokenAddressSync(key(5).publicKey, key(3).publicKey, true);
    const table = new AddressLookupTableAccount({
      key: stranger.publicKey,
      state: {
        deactivationSlot: 2n ** 64n - 1n,
        lastExtendedSlot: 0,
        lastExtendedSlotStartIndex: 0,
        addresses: [destinationAccount as PublicKey],
      },
    });
    const wire = web3Versioned(buildSolanaSweep({ ...usdc, blockhash: BLOCKHASH }), 0, burner, [table]);
    expect(checkSolanaSweep(wire, usdc)).toEqual({
      ok: false,
      reason: expect.stringMatching(/address lookup tables/),
    });
  });
});

describe("a tampered refund or bounce setup is refused from kit", () => {
  it("refuses a refund of less than the whole balance, or to another wallet", async () => {
    for (const leg of [
      { to: refund.to, amount: refund.amount - 1n },
      { to: stranger.publicKey.toBase58(), amount: refund.amount },
    ]) {
      const wire = await kitSigned(
        0,
        usdc.feePayer,
        BLOCKHASH,
        await kitSweepInstructions({ ...refund, legs: [leg] }),
        burner,
      );
      expect(checkSolanaRefund(wire, refund)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/whole balance/),
      });
    }
  });

  it.each<[string, () => Promise<Instruction[]>, RegExp]>([
    [
      "a delegate other than the relayer",
      () => kitSetup({ relayer: stranger.publicKey.toBase58() }),
      /not the bounce setup/,
    ],
    [
      "another session's statement",
      () => kitSetup({ sessionId: "1b6d3f0e-2a41-4c1f-9d3a-5d0c2b7f1e11" }),
      /this session/,
    ],
    [
      "a smaller allowance",
      async () => {
        const [memo, approve, close] = await kitSetup();
        const data = new Uint8Array((approve as Instruction).data ?? []);
        data[1] = 0;
        return [memo, { ...approve, data }, close] as Instruction[];
      },
      /not the bounce setup/,
    ],
    ["no close authority", async () => (await kitSetup()).slice(0, 2), /not the bounce setup/],
    ["an extra instruction", async () => [...(await kitSetup()), priorityFee], /not the bounce setup/],
  ])("refuses a setup with %s", async (_what, ixs, reason) => {
    const wire = await kitSigned(0, usdc.feePayer, BLOCKHASH, await ixs(), burner);
    expect(checkBounceSetup(wire, setup)).toMatchObject({ ok: false, reason: expect.stringMatching(reason) });
  });
});

// The ATA the kit builders derive is the one spl-token derives: else the acceptance above proves little.
it("kit's associated token address is spl-token's", async () => {
  expect(await ata(destination, MINT)).toBe(
    getAssociatedTokenAddressSync(key(5).publicKey, key(3).publicKey, true).toBase58(),
  );
});
