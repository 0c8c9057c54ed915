// The sweep, refund and bounce setup as other Solana clients build them: web3.js's VersionedTransaction
// (legacy or v0) from the same instructions, and @solana/kit from instructions written from the
// programs' own layouts (docs/SOLANA.md), not from our builders. Kit compiles accounts in another order
// than web3.js, so the service's check must accept all of them by what they do (issue 28 item 6).
import {
  AccountRole,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairFromBytes,
  createTransactionMessage,
  getAddressEncoder,
  getBase64EncodedWireTransaction,
  getProgramDerivedAddress,
  getU8Encoder,
  getU32Encoder,
  getU64Encoder,
  getUtf8Encoder,
  type Instruction,
  partiallySignTransaction,
  pipe,
  type ReadonlyUint8Array,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import {
  type AddressLookupTableAccount,
  type Keypair,
  type Transaction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import { BOUNCE_ALLOWANCE, bounceStatement } from "../../src/chains/solana/bounce-setup.ts";
import { NATIVE_MINT, type SweepParams, USDC_DECIMALS } from "../../src/chains/solana/sweep.ts";

const SYSTEM = address("11111111111111111111111111111111");
const TOKEN = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const ATA = address("ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL");
const MEMO = address("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");

const u8 = getU8Encoder();
const u32 = getU32Encoder();
const u64 = getU64Encoder();
const key = getAddressEncoder();
const bytes = (...parts: ReadonlyArray<ReadonlyUint8Array>) => new Uint8Array(parts.flatMap((p) => [...p]));

/** The associated token account: the PDA of (owner, token program, mint) under the ATA program. */
export async function ata(owner: string, mint: string) {
  const [pda] = await getProgramDerivedAddress({
    programAddress: ATA,
    seeds: [key.encode(address(owner)), key.encode(TOKEN), key.encode(address(mint))],
  });
  return pda;
}

const account = (a: string, role: AccountRole) => ({ address: address(a), role });

/** The sweep's instructions, from the System and SPL Token programs' layouts. */
export async function kitSweepInstructions(p: Omit<SweepParams, "blockhash">): Promise<Instruction[]> {
  const out: Instruction[] = [];
  const legs = p.legs.filter((l) => l.amount > 0n);
  const first = legs[0];
  if (p.openFirstLeg === true && first !== undefined && p.token !== NATIVE_MINT)
    out.push({
      programAddress: ATA,
      accounts: [
        account(p.feePayer, AccountRole.WRITABLE_SIGNER),
        account(await ata(first.to, p.token), AccountRole.WRITABLE),
        account(first.to, AccountRole.READONLY),
        account(p.token, AccountRole.READONLY),
        account(SYSTEM, AccountRole.READONLY),
        account(TOKEN, AccountRole.READONLY),
      ],
      data: u8.encode(1), // CreateIdempotent
    });
  for (const leg of legs) {
    if (p.token === NATIVE_MINT)
      out.push({
        programAddress: SYSTEM,
        accounts: [account(p.burner, AccountRole.WRITABLE_SIGNER), account(leg.to, AccountRole.WRITABLE)],
        data: bytes(u32.encode(2), u64.encode(leg.amount)), // Transfer
      });
    else
      out.push({
        programAddress: TOKEN,
        accounts: [
          account(await ata(p.burner, p.token), AccountRole.WRITABLE),
          account(p.token, AccountRole.READONLY),
          account(await ata(leg.to, p.token), AccountRole.WRITABLE),
          account(p.burner, AccountRole.READONLY_SIGNER),
        ],
        data: bytes(u8.encode(12), u64.encode(leg.amount), u8.encode(USDC_DECIMALS)), // TransferChecked
      });
  }
  return out;
}

/** The bounce setup's instructions: the statement memo, Approve, SetAuthority(CloseAccount). */
export async function kitBounceSetupInstructions(p: {
  sessionId: string;
  burner: string;
  refundTo: string;
  relayer: string;
  mint: string;
}): Promise<Instruction[]> {
  const tokenAccount = await ata(p.burner, p.mint);
  return [
    {
      programAddress: MEMO,
      accounts: [account(p.burner, AccountRole.READONLY_SIGNER)],
      data: getUtf8Encoder().encode(bounceStatement(p.sessionId, p.refundTo)),
    },
    {
      programAddress: TOKEN,
      accounts: [
        account(tokenAccount, AccountRole.WRITABLE),
        account(p.relayer, AccountRole.READONLY),
        account(p.burner, AccountRole.READONLY_SIGNER),
      ],
      data: bytes(u8.encode(4), u64.encode(BOUNCE_ALLOWANCE)), // Approve
    },
    {
      programAddress: TOKEN,
      accounts: [account(tokenAccount, AccountRole.WRITABLE), account(p.burner, AccountRole.READONLY_SIGNER)],
      // SetAuthority, CloseAccount (3), Some(relayer)
      data: bytes(u8.encode(6), u8.encode(3), u8.encode(1), key.encode(address(p.relayer))),
    },
  ];
}

/** A kit transaction of `instructions`, fee payer `feePayer`, signed by `signer` alone, base64. */
export async function kitSigned(
  version: "legacy" | 0,
  feePayer: string,
  blockhash: string,
  instructions: Instruction[],
  signer: Keypair | null,
): Promise<string> {
  const message = pipe(
    createTransactionMessage({ version }),
    (m) => setTransactionMessageFeePayer(address(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        // The lifetime's height is the client's to wait on; it is not in the message.
        {
          blockhash: blockhash as Parameters<
            typeof setTransactionMessageLifetimeUsingBlockhash
          >[0]["blockhash"],
          lastValidBlockHeight: 0n,
        },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const compiled = compileTransaction(message);
  const signed =
    signer === null
      ? compiled
      : await partiallySignTransaction([await createKeyPairFromBytes(signer.secretKey)], compiled);
  return getBase64EncodedWireTransaction(signed);
}

/** web3.js's VersionedTransaction of the same instructions as `legacy`, signed by `signer`, base64. */
export function web3Versioned(
  legacy: Transaction,
  version: "legacy" | 0,
  signer: Keypair,
  lookupTables: AddressLookupTableAccount[] = [],
): string {
  const message = new TransactionMessage({
    payerKey: legacy.feePayer as NonNullable<Transaction["feePayer"]>,
    recentBlockhash: legacy.recentBlockhash as string,
    instructions: legacy.instructions,
  });
  const tx = new VersionedTransaction(
    version === 0 ? message.compileToV0Message(lookupTables) : message.compileToLegacyMessage(),
  );
  tx.sign([signer]);
  return Buffer.from(tx.serialize()).toString("base64");
}
