// The `jsonParsed` encoding, as Agave's RPC answers it, for what wallets read before they sign: token
// accounts and mints (getParsedAccountInfo, getParsedTokenAccountsByOwner) and transactions
// (getParsedTransaction). Decoded by spl-token's and web3.js's own layouts; an account no parser knows
// falls back to base64, and an instruction no parser knows is given raw, as Agave does.
import {
  AccountLayout,
  AccountState,
  decodeInstruction,
  MintLayout,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from "@solana/spl-token";
import {
  PublicKey,
  SystemInstruction,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
  type VersionedMessage,
} from "@solana/web3.js";
import type { LiteSVM } from "litesvm";
import { readTokenAccount, uiAmount } from "./balances.ts";
import { bs58 } from "./wire.ts";

const MEMO = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";
const programName = (id: string) =>
  id === TOKEN_PROGRAM_ID.toBase58()
    ? "spl-token"
    : id === TOKEN_2022_PROGRAM_ID.toBase58()
      ? "spl-token-2022"
      : null;
const key = (bytes: Uint8Array) => new PublicKey(bytes).toBase58();

/** A token account's or mint's parsed data (base layout; Token-2022 extensions are not listed); else null. */
export function parsedAccountData(svm: LiteSVM, address: string, owner: string, data: Uint8Array) {
  const program = programName(owner);
  if (program === null) return null;
  if (
    data.length === MintLayout.span ||
    (data.length > AccountLayout.span && data[AccountLayout.span] === 1)
  ) {
    const m = MintLayout.decode(data.subarray(0, MintLayout.span));
    return {
      program,
      parsed: {
        type: "mint",
        info: {
          mintAuthority: m.mintAuthorityOption ? m.mintAuthority.toBase58() : null,
          supply: m.supply.toString(),
          decimals: m.decimals,
          isInitialized: m.isInitialized,
          freezeAuthority: m.freezeAuthorityOption ? m.freezeAuthority.toBase58() : null,
        },
      },
      space: data.length,
    };
  }
  const t = readTokenAccount(svm, address);
  if (t === null) return null;
  const a = AccountLayout.decode(data.subarray(0, AccountLayout.span));
  const state =
    a.state === AccountState.Frozen
      ? "frozen"
      : a.state === AccountState.Initialized
        ? "initialized"
        : "uninitialized";
  return {
    program,
    parsed: {
      type: "account",
      info: {
        isNative: a.isNativeOption === 1,
        mint: t.mint,
        owner: t.owner,
        state,
        tokenAmount: uiAmount(t.amount, t.decimals),
        ...(a.delegateOption
          ? { delegate: a.delegate.toBase58(), delegatedAmount: uiAmount(a.delegatedAmount, t.decimals) }
          : {}),
        ...(a.closeAuthorityOption ? { closeAuthority: a.closeAuthority.toBase58() } : {}),
      },
    },
    space: data.length,
  };
}

/** A message's account keys and instructions in Agave's parsed form (no lookup tables: the node resolves none). */
export function parsedMessage(message: VersionedMessage) {
  const keys = message.staticAccountKeys;
  const accountKeys = keys.map((k, i) => ({
    pubkey: k.toBase58(),
    signer: message.isAccountSigner(i),
    writable: message.isAccountWritable(i),
    source: "transaction",
  }));
  const instructions = TransactionMessage.decompile(message).instructions.map(parsedInstruction);
  return {
    accountKeys,
    recentBlockhash: message.recentBlockhash,
    instructions,
    ...(message.version === 0 ? { addressTableLookups: message.addressTableLookups } : {}),
  };
}

function parsedInstruction(ix: TransactionInstruction) {
  const programId = ix.programId.toBase58();
  const raw = {
    programId,
    accounts: ix.keys.map((k) => k.pubkey.toBase58()),
    data: bs58(ix.data),
    stackHeight: null,
  };
  try {
    if (programId === MEMO)
      return { program: "spl-memo", programId, parsed: ix.data.toString("utf8"), stackHeight: null };
    if (ix.programId.equals(SystemProgram.programId)) {
      if (SystemInstruction.decodeInstructionType(ix) !== "Transfer") return raw;
      const t = SystemInstruction.decodeTransfer(ix);
      const info = {
        source: t.fromPubkey.toBase58(),
        destination: t.toPubkey.toBase58(),
        lamports: Number(t.lamports),
      };
      return { program: "system", programId, parsed: { type: "transfer", info }, stackHeight: null };
    }
    const program = programName(programId);
    if (program === null) return raw;
    const d = decodeInstruction(ix, ix.programId) as {
      keys: Record<string, { pubkey: PublicKey }>;
      data: Record<string, unknown> & { instruction: number };
    };
    const type = TOKEN_INSTRUCTION_TYPES[d.data.instruction];
    if (type === undefined) return raw;
    const info: Record<string, unknown> = {};
    for (const [name, meta] of Object.entries(d.keys))
      if (meta && !Array.isArray(meta)) info[name] = meta.pubkey.toBase58();
    for (const [name, value] of Object.entries(d.data))
      if (name !== "instruction")
        info[name] =
          value instanceof Uint8Array ? key(value) : typeof value === "bigint" ? value.toString() : value;
    return { program, programId, parsed: { type, info }, stackHeight: null };
  } catch {
    return raw;
  }
}

/** The SPL Token instructions given a parsed form here (by their instruction byte), Agave's names. */
const TOKEN_INSTRUCTION_TYPES: Record<number, string> = {
  3: "transfer",
  4: "approve",
  5: "revoke",
  6: "setAuthority",
  7: "mintTo",
  8: "burn",
  9: "closeAccount",
  12: "transferChecked",
};
