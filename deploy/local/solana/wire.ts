// The wire forms of accounts, transactions and blocks, as Agave's RPC answers them in the `json`,
// `base64` and `jsonParsed` encodings (parsed.ts).
import { getBase58Decoder } from "@solana/kit";
import { VersionedTransaction } from "@solana/web3.js";
import type { Block, Chain, TxRecord } from "./chain.ts";
import { INVALID_PARAMS, RpcError } from "./errors.ts";
import { parsedAccountData, parsedMessage } from "./parsed.ts";

const b58 = getBase58Decoder();
export const bs58 = (bytes: Uint8Array) => b58.decode(bytes);
type Config = { encoding?: string; [key: string]: unknown };

export function accountJson(chain: Chain, address: string, encoding = "base64") {
  const account = chain.account(address);
  if (!account) return null;
  if (encoding !== "base64" && encoding !== "jsonParsed")
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: encoding ${encoding} is not served by the local node`,
    );
  const parsed =
    encoding === "jsonParsed"
      ? parsedAccountData(chain.svm, address, account.programAddress, account.data)
      : null;
  return {
    // jsonParsed falls back to base64 for an account no parser knows, as Agave does.
    data: parsed ?? [Buffer.from(account.data).toString("base64"), "base64"],
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.programAddress,
    rentEpoch: 0,
    space: account.data.length,
  };
}

export function txJson(tx: TxRecord, encoding: string | undefined, withVersion: boolean) {
  const wire = Buffer.from(tx.wire, "base64");
  if (encoding !== undefined && encoding !== "json" && encoding !== "base64" && encoding !== "jsonParsed")
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: encoding ${encoding} is not served by the local node`,
    );
  let transaction: unknown = [tx.wire, "base64"];
  if (encoding === "jsonParsed") {
    const { message, signatures } = VersionedTransaction.deserialize(wire);
    transaction = { signatures: signatures.map((sig) => bs58(sig)), message: parsedMessage(message) };
  } else if (encoding === undefined || encoding === "json") {
    const { message, signatures } = VersionedTransaction.deserialize(wire);
    const keys = message.staticAccountKeys.map((k) => k.toBase58());
    transaction = {
      signatures: signatures.map((sig) => bs58(sig)),
      message: {
        accountKeys: keys,
        header: message.header,
        recentBlockhash: message.recentBlockhash,
        instructions: message.compiledInstructions.map((ix) => ({
          programIdIndex: ix.programIdIndex,
          accounts: ix.accountKeyIndexes,
          data: bs58(ix.data),
          stackHeight: null,
        })),
        ...(message.version === 0 ? { addressTableLookups: message.addressTableLookups } : {}),
      },
    };
  }
  return {
    slot: tx.slot,
    blockTime: tx.blockTime,
    ...(withVersion ? { version: tx.version } : {}),
    transaction,
    meta: {
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      fee: tx.fee,
      preBalances: tx.preBalances,
      postBalances: tx.postBalances,
      innerInstructions: [],
      logMessages: tx.logs,
      preTokenBalances: tx.preTokenBalances,
      postTokenBalances: tx.postTokenBalances,
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: tx.unitsConsumed,
    },
  };
}

export function blockJson(block: Block, cfg: Config) {
  const details = (cfg.transactionDetails as string | undefined) ?? "full";
  const withVersion = cfg.maxSupportedTransactionVersion !== undefined;
  if (!withVersion && block.transactions.some((t) => t.version !== "legacy"))
    throw new RpcError(-32015, "Transaction version (0) is not supported by the requesting client.");
  return {
    blockhash: block.blockhash,
    previousBlockhash: block.previousBlockhash,
    parentSlot: Math.max(0, block.slot - 1),
    blockHeight: block.slot,
    blockTime: block.blockTime || null,
    ...(details === "full"
      ? {
          transactions: block.transactions.map((t) => {
            const { slot: _s, blockTime: _b, ...rest } = txJson(t, cfg.encoding, withVersion);
            return rest;
          }),
        }
      : details === "signatures"
        ? { signatures: block.transactions.map((t) => t.signature) }
        : {}),
    ...(cfg.rewards === false ? {} : { rewards: [] }),
  };
}
