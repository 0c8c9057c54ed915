import { randomBytes } from "node:crypto";
import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from "@solana/spl-token";
import {
  type ConfirmedSignatureInfo,
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  VersionedTransaction,
  type VersionedTransactionResponse,
} from "@solana/web3.js";
import { describe, expect, it } from "vitest";
import { announcementMarker, buildAnnouncement } from "../../src/chains/solana/announce.ts";
import { buildSolanaSweep, checkSolanaSweep } from "../../src/chains/solana/sweep.ts";
import {
  announcementsInTransaction,
  scanSolanaStealthAnnouncements,
} from "../../src/client/actions/scan-solana-stealth-announcements.ts";
import {
  deriveSolanaStealthAddress,
  newEphemeralScalar,
  solanaStealthPublicKeys,
} from "../../src/stealth/ed25519.ts";
import { parseSolanaAnnouncementMemo, solanaAnnouncementMemo } from "../../src/stealth/solana-memo.ts";

// The Solana announcement (docs/STEALTH.md, "The announcement on Solana"): its memo text, the memo
// transaction the executor sends, what the recipient's scanner reads back from it, and the sweep that
// opens a fresh stealth address's USDC account.

const relayer = Keypair.generate();
const BLOCKHASH = "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn";
const recipient = { spendSeed: randomBytes(32), viewSeed: randomBytes(32) };
const stranger = { spendSeed: randomBytes(32), viewSeed: randomBytes(32) };
const announced = () => deriveSolanaStealthAddress(solanaStealthPublicKeys(recipient), newEphemeralScalar());

/** The announcement transaction as getTransaction answers it (maxSupportedTransactionVersion 0). */
function landed(memo: string, slot: number, err: unknown = null): VersionedTransactionResponse {
  const marker = announcementMarker(relayer, `session-${slot}:announce/announce`);
  const tx = buildAnnouncement({
    memo,
    marker: marker.publicKey,
    feePayer: relayer.publicKey,
    blockhash: BLOCKHASH,
    lastValidBlockHeight: 100,
  });
  tx.sign(relayer, marker);
  const versioned = VersionedTransaction.deserialize(tx.serialize());
  return {
    slot,
    blockTime: null,
    transaction: versioned,
    meta: { err, fee: 10_000 } as VersionedTransactionResponse["meta"],
  } as unknown as VersionedTransactionResponse;
}

describe("the announcement's memo", () => {
  it("reads back what it writes: scheme, ephemeral key, view tag, stealth address", () => {
    const d = announced();
    const memo = solanaAnnouncementMemo(d);
    expect(memo).toBe(
      `stealth-announce solana-ed25519-1 ephemeral_pubkey=${d.ephemeralPubkey} view_tag=${d.viewTag} stealth_address=${d.stealthAddress}`,
    );
    expect(parseSolanaAnnouncementMemo(memo)).toEqual(d);
  });

  it.each([
    ["another memo", "deposit-settlement bounce v1 session=x refund_to=y"],
    [
      "another scheme",
      `stealth-announce erc5564-1 ephemeral_pubkey=${"1".repeat(32)} view_tag=1 stealth_address=${"2".repeat(32)}`,
    ],
    ["a view tag above a byte", solanaAnnouncementMemo(announced()).replace(/view_tag=\d+/, "view_tag=256")],
    [
      "a view tag with a leading zero",
      solanaAnnouncementMemo(announced()).replace(/view_tag=\d+/, "view_tag=07"),
    ],
    [
      "a key that is not base58",
      solanaAnnouncementMemo(announced()).replace(/stealth_address=\w+/, "stealth_address=0OIl"),
    ],
    ["trailing text", `${solanaAnnouncementMemo(announced())} extra`],
  ])("is not read from %s", (_what, memo) => {
    expect(parseSolanaAnnouncementMemo(memo)).toBeNull();
  });

  it("refuses to write a view tag that is not one byte", () => {
    expect(() => solanaAnnouncementMemo({ ...announced(), viewTag: 256 })).toThrow(RangeError);
  });
});

describe("the announcement transaction", () => {
  it("is one Memo v2 instruction signed by the step's marker, the same marker on every try of one step only", () => {
    const key = "7f0c3c1e-2b1a-4d7e-9e4f-0c1d2e3f4a5b:announce/announce";
    expect(announcementMarker(relayer, key).publicKey.toBase58()).toBe(
      announcementMarker(relayer, key).publicKey.toBase58(),
    );
    expect(
      announcementMarker(relayer, `${key}x`).publicKey.equals(announcementMarker(relayer, key).publicKey),
    ).toBe(false);
    expect(
      announcementMarker(Keypair.generate(), key).publicKey.equals(
        announcementMarker(relayer, key).publicKey,
      ),
    ).toBe(false);
    const d = announced();
    const [found] = announcementsInTransaction(landed(solanaAnnouncementMemo(d), 5));
    expect(found).toEqual(d);
  });

  it("announces nothing when it failed, or when its memo is not an announcement", () => {
    expect(
      announcementsInTransaction(
        landed(solanaAnnouncementMemo(announced()), 5, { InstructionError: [0, "Custom"] }),
      ),
    ).toEqual([]);
    expect(announcementsInTransaction(landed("hello", 6))).toEqual([]);
    // A transfer is no memo, even from the relayer.
    const transfer = new Transaction({ feePayer: relayer.publicKey, recentBlockhash: BLOCKHASH }).add(
      SystemProgram.transfer({
        fromPubkey: relayer.publicKey,
        toPubkey: Keypair.generate().publicKey,
        lamports: 1,
      }),
    );
    transfer.sign(relayer);
    const response = {
      ...landed("x", 7),
      transaction: VersionedTransaction.deserialize(transfer.serialize()),
    } as unknown as VersionedTransactionResponse;
    expect(announcementsInTransaction(response)).toEqual([]);
  });
});

describe("scanSolanaStealthAnnouncements", () => {
  // The chain's history of the announcer, newest first, as getSignaturesForAddress pages it.
  const ours = announced();
  const theirs = deriveSolanaStealthAddress(solanaStealthPublicKeys(stranger), newEphemeralScalar());
  const history: Array<[string, VersionedTransactionResponse]> = [
    ["sig-4", landed(solanaAnnouncementMemo(theirs), 4)],
    ["sig-3", landed(solanaAnnouncementMemo(ours), 3)],
    ["sig-2", landed("not an announcement", 2)],
    // Failed on chain: not a payment even though its memo names ours.
    ["sig-1", landed(solanaAnnouncementMemo(announced()), 1, { InstructionError: [0, "Custom"] })],
  ];
  const asked: Array<{ limit?: number; before?: string }> = [];
  const connection = {
    async getSignaturesForAddress(_address: unknown, opts?: { limit?: number; before?: string }) {
      asked.push({ ...opts });
      const start = opts?.before ? history.findIndex(([s]) => s === opts.before) + 1 : 0;
      return history.slice(start, start + (opts?.limit ?? 1000)).map(
        ([signature, tx]) =>
          ({
            signature,
            slot: tx.slot,
            err: tx.meta?.err ?? null,
            memo: null,
            blockTime: null,
          }) as ConfirmedSignatureInfo,
      );
    },
    async getTransaction(signature: string) {
      return history.find(([s]) => s === signature)?.[1] ?? null;
    },
  } as unknown as Parameters<typeof scanSolanaStealthAnnouncements>[0];

  it("finds exactly the recipient's payment, across pages, and a stranger's keys find only theirs", async () => {
    const found = await scanSolanaStealthAnnouncements(connection, {
      viewSeed: recipient.viewSeed,
      spendPubkey: solanaStealthPublicKeys(recipient).spendPubkey,
      announcer: relayer.publicKey.toBase58(),
      maxTransactions: 3,
    });
    expect(found).toEqual([{ ...ours, signature: "sig-3", slot: 3 }]);
    const other = await scanSolanaStealthAnnouncements(connection, {
      viewSeed: stranger.viewSeed,
      spendPubkey: solanaStealthPublicKeys(stranger).spendPubkey,
      announcer: relayer.publicKey.toBase58(),
    });
    expect(other.map((p) => p.stealthAddress)).toEqual([theirs.stealthAddress]);
    // The view key alone with another spend key claims nothing.
    const mixed = await scanSolanaStealthAnnouncements(connection, {
      viewSeed: recipient.viewSeed,
      spendPubkey: solanaStealthPublicKeys(stranger).spendPubkey,
      announcer: relayer.publicKey.toBase58(),
    });
    expect(mixed).toEqual([]);
  });

  it("stops at maxTransactions", async () => {
    asked.length = 0;
    const found = await scanSolanaStealthAnnouncements(connection, {
      viewSeed: recipient.viewSeed,
      spendPubkey: solanaStealthPublicKeys(recipient).spendPubkey,
      announcer: relayer.publicKey.toBase58(),
      maxTransactions: 1,
    });
    expect(found).toEqual([]);
    expect(asked).toEqual([{ limit: 1 }]);
  });
});

describe("a Flow D sweep opens the stealth address's USDC account", () => {
  const burner = Keypair.generate();
  const mint = Keypair.generate().publicKey;
  const stealth = announced().stealthAddress;
  const params = {
    burner: burner.publicKey.toBase58(),
    feePayer: relayer.publicKey.toBase58(),
    token: mint.toBase58(),
    legs: [
      { to: stealth, amount: 9_920_000n },
      { to: relayer.publicKey.toBase58(), amount: 80_000n },
    ],
  };
  const signed = (tx: Transaction) => {
    tx.partialSign(burner);
    return tx.serialize({ requireAllSignatures: false }).toString("base64");
  };

  it("first, with the idempotent create paid by the fee payer, then the transfers", () => {
    const tx = buildSolanaSweep({ ...params, blockhash: BLOCKHASH, openFirstLeg: true });
    expect(tx.instructions).toHaveLength(3);
    const [create] = tx.instructions;
    expect(create?.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)).toBe(true);
    expect(create?.data).toEqual(Buffer.from([1])); // CreateIdempotent: a no-op when the account exists
    expect(create?.keys.map((k) => k.pubkey.toBase58())).toEqual([
      relayer.publicKey.toBase58(),
      getAssociatedTokenAddressSync(mint, new PublicKey(stealth), true).toBase58(),
      stealth,
      mint.toBase58(),
      SystemProgram.programId.toBase58(),
      expect.any(String),
    ]);
  });

  it("is accepted only where the session opens it, and a plain sweep only where it does not", () => {
    const opened = signed(buildSolanaSweep({ ...params, blockhash: BLOCKHASH, openFirstLeg: true }));
    const plain = signed(buildSolanaSweep({ ...params, blockhash: BLOCKHASH }));
    expect(checkSolanaSweep(opened, { ...params, openFirstLeg: true }).ok).toBe(true);
    expect(checkSolanaSweep(plain, { ...params, openFirstLeg: true }).ok).toBe(false);
    expect(checkSolanaSweep(opened, params).ok).toBe(false);
    expect(checkSolanaSweep(plain, params).ok).toBe(true);
  });
});
