// The JSON-RPC method table: each method reads the chain at the commitment its caller asks for and
// answers in the wire form Agave's RPC uses (what @solana/web3.js 1.x validates its responses against).
import { getBase58Encoder } from "@solana/kit";
import { type Keypair, PublicKey, SystemProgram, Transaction, VersionedMessage } from "@solana/web3.js";
import { readTokenAccount, uiAmount } from "./balances.ts";
import type { Chain, Commitment, TxRecord } from "./chain.ts";
import { LAMPORTS_PER_SIGNATURE } from "./chain.ts";
import { BLOCK_NOT_AVAILABLE, INVALID_PARAMS, RpcError, SLOT_SKIPPED } from "./errors.ts";
import { accountJson, blockJson, txJson } from "./wire.ts";

type Params = unknown[];
type Config = { commitment?: Commitment; encoding?: string; [key: string]: unknown };
export type Method = (params: Params) => unknown;

/** What a node of this version reports; litesvm 1.5 embeds the Agave 3.x runtime crates. */
export const VERSION = { "solana-core": "3.0.0", "feature-set": 0 };
const SLOTS_PER_EPOCH = 432_000;

const str = (v: unknown, what: string): string => {
  if (typeof v !== "string" || v.length === 0) throw new RpcError(INVALID_PARAMS, `Invalid params: ${what}`);
  return v;
};
const num = (v: unknown, what: string): number => {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${what}`);
  return v;
};
const config = (v: unknown): Config => (v && typeof v === "object" ? (v as Config) : {});

export function methods(chain: Chain, faucet: Keypair): Record<string, Method> {
  const ctx = (commitment?: Commitment) => ({
    context: { slot: chain.slotAt(commitment), apiVersion: "3.0.0" },
  });
  const visible = (tx: TxRecord | undefined, commitment?: Commitment) =>
    tx && chain.reached(tx, commitment ?? "finalized") ? tx : undefined;
  const status = (tx: TxRecord) => {
    const finalized = chain.reached(tx, "finalized");
    return {
      slot: tx.slot,
      confirmations: finalized ? null : chain.slot - tx.slot,
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      confirmationStatus: finalized ? "finalized" : "confirmed",
    };
  };

  return {
    getHealth: () => "ok",
    getVersion: () => VERSION,
    getGenesisHash: () => chain.genesisHash,
    getSlot: ([c]) => chain.slotAt(config(c).commitment),
    getBlockHeight: ([c]) => chain.slotAt(config(c).commitment),
    getTransactionCount: () => chain.transactionCount,
    getEpochInfo: ([c]) => {
      const slot = chain.slotAt(config(c).commitment);
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: Math.floor(slot / SLOTS_PER_EPOCH),
        slotIndex: slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: chain.transactionCount,
      };
    },
    getLatestBlockhash: ([c]) => {
      const commitment = config(c).commitment;
      const { blockhash, slot } = chain.blockhashAt(commitment);
      return { ...ctx(commitment), value: { blockhash, lastValidBlockHeight: slot + 150 } };
    },
    isBlockhashValid: ([hash, c]) => ({
      ...ctx(config(c).commitment),
      value: chain.isBlockhashValid(str(hash, "blockhash")),
    }),
    getMinimumBalanceForRentExemption: ([len]) =>
      Number(chain.svm.minimumBalanceForRentExemption(BigInt(num(len, "data length")))),
    getFeeForMessage: ([message, c]) => {
      const bytes = Buffer.from(str(message, "message"), "base64");
      let header: { numRequiredSignatures: number };
      try {
        header = VersionedMessage.deserialize(bytes).header;
      } catch {
        throw new RpcError(INVALID_PARAMS, "Invalid params: message");
      }
      return { ...ctx(config(c).commitment), value: header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE };
    },
    getBalance: ([address, c]) => ({
      ...ctx(config(c).commitment),
      value: Number(chain.account(str(address, "address"))?.lamports ?? 0n),
    }),
    getAccountInfo: ([address, c]) => ({
      ...ctx(config(c).commitment),
      value: accountJson(chain, str(address, "address"), config(c).encoding),
    }),
    getMultipleAccounts: ([addresses, c]) => {
      if (!Array.isArray(addresses)) throw new RpcError(INVALID_PARAMS, "Invalid params: addresses");
      return {
        ...ctx(config(c).commitment),
        value: addresses.map((a) => accountJson(chain, str(a, "address"), config(c).encoding)),
      };
    },
    getTokenAccountBalance: ([address, c]) => {
      const t = readTokenAccount(chain.svm, str(address, "address"));
      if (!t) throw new RpcError(INVALID_PARAMS, "Invalid param: could not find account");
      return { ...ctx(config(c).commitment), value: uiAmount(t.amount, t.decimals) };
    },
    getTokenAccountsByOwner: ([owner, filter, c]) => {
      const who = str(owner, "owner");
      const f = config(filter) as { mint?: string; programId?: string };
      if (!f.mint && !f.programId) throw new RpcError(INVALID_PARAMS, "Invalid params: mint or programId");
      const programs = f.programId
        ? [f.programId]
        : ["TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA", "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb"];
      const value = programs.flatMap((program) =>
        chain.svm
          .getProgramAccounts(program as never)
          .map((a) => ({ a, t: readTokenAccount(chain.svm, a.address) }))
          .filter(({ t }) => t && t.owner === who && (!f.mint || t.mint === f.mint))
          .map(({ a }) => ({
            pubkey: a.address,
            account: accountJson(chain, a.address, config(c).encoding),
          })),
      );
      return { ...ctx(config(c).commitment), value };
    },
    sendTransaction: ([wire, c]) => {
      const cfg = config(c);
      const encoding = cfg.encoding ?? "base58";
      const raw = str(wire, "transaction");
      const bytes = encoding === "base64" ? Buffer.from(raw, "base64") : Buffer.from(b58Encode(raw));
      return chain.submit(bytes, { skipPreflight: cfg.skipPreflight === true });
    },
    simulateTransaction: ([wire, c]) => {
      const cfg = config(c);
      const raw = str(wire, "transaction");
      const bytes = cfg.encoding === "base64" ? Buffer.from(raw, "base64") : Buffer.from(b58Encode(raw));
      // Agave's defaults: signatures not checked (a wallet simulates before asking for them), the
      // message's blockhash kept unless replaceRecentBlockhash; the two options exclude each other.
      const sigVerify = cfg.sigVerify === true;
      const replace = cfg.replaceRecentBlockhash === true;
      if (sigVerify && replace)
        throw new RpcError(INVALID_PARAMS, "sigVerify may not be used with replaceRecentBlockhash");
      const at = replace ? chain.blockhashAt(cfg.commitment) : null;
      const latest = at && { blockhash: at.blockhash, lastValidBlockHeight: at.slot + 150 };
      const sim = chain.simulate(bytes, { sigVerify, checkBlockhash: !replace });
      return {
        ...ctx(cfg.commitment),
        value: {
          ...sim,
          accounts: null,
          returnData: null,
          innerInstructions: null,
          replacementBlockhash: latest,
        },
      };
    },
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures)) throw new RpcError(INVALID_PARAMS, "Invalid params: signatures");
      return {
        ...ctx("confirmed"),
        value: signatures.map((s) => {
          const tx = chain.transaction(str(s, "signature"));
          return tx ? status(tx) : null;
        }),
      };
    },
    getTransaction: ([signature, c]) => {
      const cfg = config(c);
      const tx = visible(chain.transaction(str(signature, "signature")), cfg.commitment);
      if (!tx) return null;
      if (tx.version !== "legacy" && cfg.maxSupportedTransactionVersion === undefined)
        throw new RpcError(-32015, "Transaction version (0) is not supported by the requesting client.");
      return txJson(tx, cfg.encoding, cfg.maxSupportedTransactionVersion !== undefined);
    },
    getSignaturesForAddress: ([address, c]) => {
      const cfg = config(c);
      const limit = cfg.limit === undefined ? 1000 : num(cfg.limit, "limit");
      if (limit < 1 || limit > 1000) throw new RpcError(INVALID_PARAMS, "Invalid limit; max 1000");
      const all = chain
        .signaturesFor(str(address, "address"))
        .filter((t) => visible(t, cfg.commitment))
        .reverse();
      let start = 0;
      if (typeof cfg.before === "string") {
        const i = all.findIndex((t) => t.signature === cfg.before);
        start = i < 0 ? all.length : i + 1;
      }
      let end = all.length;
      if (typeof cfg.until === "string") {
        const i = all.findIndex((t) => t.signature === cfg.until);
        if (i >= 0) end = i;
      }
      return all
        .slice(start, end)
        .slice(0, limit)
        .map((t) => ({
          signature: t.signature,
          slot: t.slot,
          err: t.err,
          memo: null,
          blockTime: t.blockTime,
          confirmationStatus: chain.reached(t, "finalized") ? "finalized" : "confirmed",
        }));
    },
    getBlock: ([slot, c]) => {
      const cfg = config(c);
      const s = num(slot, "slot");
      if (s > chain.slotAt(cfg.commitment))
        throw new RpcError(BLOCK_NOT_AVAILABLE, `Block not available for slot ${s}`);
      const block = chain.block(s);
      if (!block) throw new RpcError(SLOT_SKIPPED, `Slot ${s} was skipped, or missing in long-term storage`);
      return blockJson(block, cfg);
    },
    getBlocks: ([start, end, c]) => {
      const cfg = config(typeof end === "object" ? end : c);
      const top = chain.slotAt(cfg.commitment);
      const last = typeof end === "number" ? Math.min(num(end, "end slot"), top) : top;
      const first = num(start, "start slot");
      if (last - first > 500_000) throw new RpcError(INVALID_PARAMS, "Slot range too large; max 500000");
      return chain.blockSlots(first, last);
    },
    getBlockTime: ([slot]) => {
      const block = chain.block(num(slot, "slot"));
      if (!block) throw new RpcError(SLOT_SKIPPED, `Slot ${String(slot)} was skipped`);
      return block.blockTime || null;
    },
    requestAirdrop: ([address, lamports]) => {
      const amount = num(lamports, "lamports");
      const { blockhash } = chain.blockhashAt("confirmed");
      const tx = new Transaction({ feePayer: faucet.publicKey, recentBlockhash: blockhash }).add(
        SystemProgram.transfer({
          fromPubkey: faucet.publicKey,
          toPubkey: toKey(str(address, "address")),
          lamports: amount,
        }),
      );
      tx.sign(faucet);
      return chain.submit(tx.serialize());
    },
  };
}

const b58e = getBase58Encoder();
function b58Encode(text: string): Uint8Array {
  try {
    return new Uint8Array(b58e.encode(text));
  } catch {
    throw new RpcError(INVALID_PARAMS, "Invalid params: not base58");
  }
}

function toKey(address: string): PublicKey {
  try {
    return new PublicKey(address);
  } catch {
    throw new RpcError(INVALID_PARAMS, "Invalid params: address");
  }
}
