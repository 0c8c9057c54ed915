// The chain litesvm does not keep: slots ticking on a timer, a block per slot, the last 150 blockhashes,
// a signature index and commitment levels (`confirmed` as soon as a transaction runs, `finalized` once its
// slot is `finalityLag` slots old). litesvm only executes; this decides what a client sees.
import { type Address, getBase58Decoder, getTransactionDecoder } from "@solana/kit";
import { VersionedTransaction } from "@solana/web3.js";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { snapshotBalances, type TokenBalance } from "./balances.ts";
import { PREFLIGHT_FAILURE, RpcError, type RpcTxError, rpcTxError } from "./errors.ts";
import type { Store } from "./store.ts";

export type Commitment = "processed" | "confirmed" | "finalized";
/** How many blockhashes stay usable, as on a real cluster (MAX_PROCESSING_AGE). */
export const BLOCKHASH_AGE = 150;
/** litesvm's fee per signature; priority fees are not modelled. */
export const LAMPORTS_PER_SIGNATURE = 5000;

export interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  /** The wire transaction, base64. */
  wire: string;
  version: "legacy" | 0;
  accountKeys: string[];
  err: RpcTxError | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  unitsConsumed: number;
}

export interface Block {
  slot: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  transactions: TxRecord[];
}

export interface ChainEvents {
  /** A transaction ran (it is `processed` and `confirmed` at once). */
  transaction(tx: TxRecord): void;
  /** A new slot opened; `finalized` is the newest finalized slot. */
  slot(slot: number, finalized: number): void;
  /** The block of `slot` became finalized. */
  finalized(block: Block): void;
}

const base58 = getBase58Decoder();
const decodeTx = getTransactionDecoder();
const configure = (svm: LiteSVM) => svm.withSigverify(true).withBlockhashCheck(false);

export class Chain {
  slot = 0;
  transactionCount = 0;
  genesisHash = "";
  private readonly blockhashes: { slot: number; hash: string }[] = [];
  private readonly blocks = new Map<number, Block>();
  private readonly txs = new Map<string, TxRecord>();
  /** Signatures per address, oldest first. */
  private readonly byAddress = new Map<string, string[]>();
  private open: Block;
  private snapshot: string | null = null;
  private listeners: Partial<ChainEvents>[] = [];

  private constructor(
    readonly svm: LiteSVM,
    private readonly store: Store,
    readonly finalityLag: number,
  ) {
    this.open = { slot: 0, blockhash: "", previousBlockhash: "", blockTime: 0, transactions: [] };
  }

  /** Opens the chain in the store's folder: restored from its last commit, or a new genesis. */
  static open(store: Store, finalityLag: number): Chain {
    const saved = store.load();
    if (!saved) {
      const chain = new Chain(configure(new LiteSVM().withNativeMints()), store, finalityLag);
      chain.genesisHash = chain.svm.latestBlockhash();
      chain.startSlot(0, chain.genesisHash);
      return chain;
    }
    const chain = new Chain(configure(LiteSVM.loadFromFile(saved.snapshotPath)), store, finalityLag);
    chain.snapshot = saved.state.snapshot;
    chain.genesisHash = saved.state.genesisHash;
    chain.transactionCount = saved.state.transactionCount;
    chain.blockhashes.push(...saved.state.blockhashes);
    for (const block of saved.blocks) {
      chain.blocks.set(block.slot, block);
      for (const tx of block.transactions) chain.index(tx);
    }
    chain.svm.expireBlockhash();
    chain.startSlot(saved.state.slot + 1, saved.state.blockhashes.at(-1)?.hash ?? "");
    return chain;
  }

  on(events: Partial<ChainEvents>): void {
    this.listeners.push(events);
  }

  private startSlot(slot: number, previousBlockhash: string): void {
    this.slot = slot;
    this.svm.warpToSlot(BigInt(slot));
    const hash = this.svm.latestBlockhash();
    this.open = {
      slot,
      blockhash: hash,
      previousBlockhash,
      blockTime: Math.floor(Date.now() / 1000),
      transactions: [],
    };
    this.blockhashes.push({ slot, hash });
    while (this.blockhashes.length > BLOCKHASH_AGE + this.finalityLag + 1) this.blockhashes.shift();
  }

  /** Closes the open slot (persisting it if it changed anything) and opens the next. */
  tick(): void {
    const closed = this.open;
    const changed = closed.transactions.length > 0;
    if (changed) this.blocks.set(closed.slot, closed);
    if (changed || closed.slot % 25 === 0) this.persist(changed ? closed : null);
    this.svm.expireBlockhash();
    this.startSlot(closed.slot + 1, closed.blockhash);
    const finalized = this.slotAt("finalized");
    for (const l of this.listeners) l.slot?.(this.slot, finalized);
    const block = this.blocks.get(finalized);
    if (block) for (const l of this.listeners) l.finalized?.(block);
  }

  /** Writes the state so far; the open slot's transactions are written as the block they will be. */
  persist(block: Block | null = this.open.transactions.length > 0 ? this.open : null): void {
    const { slot } = block ?? this.open;
    this.snapshot = this.store.commit(
      this.svm,
      {
        slot: block ? slot : this.open.slot - 1,
        genesisHash: this.genesisHash,
        blockhashes: this.blockhashes,
        transactionCount: this.transactionCount,
      },
      block,
      this.snapshot,
    );
  }

  slotAt(commitment: Commitment = "finalized"): number {
    return commitment === "finalized" ? Math.max(0, this.slot - this.finalityLag) : this.slot;
  }

  blockhashAt(commitment: Commitment = "finalized"): { blockhash: string; slot: number } {
    const slot = this.slotAt(commitment);
    const entry = this.blockhashes.find((b) => b.slot === slot) ?? this.blockhashes.at(-1);
    if (!entry) throw new Error("no blockhash yet");
    return { blockhash: entry.hash, slot: entry.slot };
  }

  isBlockhashValid(hash: string): boolean {
    const entry = this.blockhashes.find((b) => b.hash === hash);
    return entry !== undefined && this.slot - entry.slot <= BLOCKHASH_AGE;
  }

  /** `processed` and `confirmed` are reached at once; `finalized` once the slot is old enough. */
  reached(tx: TxRecord, commitment: Commitment): boolean {
    return commitment !== "finalized" || tx.slot <= this.slotAt("finalized");
  }

  transaction(signature: string): TxRecord | undefined {
    return this.txs.get(signature);
  }

  block(slot: number): Block | undefined {
    if (slot === this.open.slot) return this.open;
    const kept = this.blocks.get(slot);
    if (kept) return kept;
    // Empty slots are not written down; their blockhash is kept only while it is in the queue.
    const recent = this.blockhashes.find((b) => b.slot === slot);
    const parent = this.blockhashes.find((b) => b.slot === slot - 1);
    return recent && parent
      ? { slot, blockhash: recent.hash, previousBlockhash: parent.hash, blockTime: 0, transactions: [] }
      : undefined;
  }

  blockSlots(start: number, end: number): number[] {
    const slots = new Set<number>([...this.blocks.keys()].filter((s) => s >= start && s <= end));
    for (const b of this.blockhashes)
      if (b.slot >= start && b.slot <= end && this.block(b.slot)) slots.add(b.slot);
    return [...slots].sort((a, b) => a - b);
  }

  signaturesFor(address: string): TxRecord[] {
    return (this.byAddress.get(address) ?? []).map((s) => this.txs.get(s) as TxRecord);
  }

  private index(tx: TxRecord): void {
    this.txs.set(tx.signature, tx);
    for (const key of new Set(tx.accountKeys)) {
      const list = this.byAddress.get(key) ?? [];
      list.push(tx.signature);
      this.byAddress.set(key, list);
    }
  }

  private decode(wire: Uint8Array) {
    let parsed: VersionedTransaction;
    try {
      parsed = VersionedTransaction.deserialize(wire);
    } catch (err) {
      throw new RpcError(-32602, `failed to deserialize transaction: ${(err as Error).message}`);
    }
    const first = parsed.signatures[0];
    if (!first) throw new RpcError(-32602, "transaction has no signature");
    return { parsed, signature: base58.decode(first), kit: decodeTx.decode(wire) };
  }

  private preflightError(message: string, err: RpcTxError, logs: string[] = [], unitsConsumed = 0): RpcError {
    return new RpcError(PREFLIGHT_FAILURE, `Transaction simulation failed: ${message}`, {
      err,
      logs,
      accounts: null,
      unitsConsumed,
      returnData: null,
    });
  }

  /**
   * Runs a wire transaction without keeping anything. `sigVerify` false (simulateTransaction's
   * default) runs an unsigned one; `checkBlockhash` refuses an unknown blockhash as a node does.
   */
  simulate(
    wire: Uint8Array,
    opts: { sigVerify: boolean; checkBlockhash: boolean } = { sigVerify: true, checkBlockhash: false },
  ): { err: RpcTxError | null; logs: string[]; unitsConsumed: number } {
    const { parsed, kit } = this.decode(wire);
    if (opts.checkBlockhash && !this.isBlockhashValid(parsed.message.recentBlockhash))
      return { err: "BlockhashNotFound", logs: [], unitsConsumed: 0 };
    // litesvm's switch is the instance's: set for this one call (synchronous), then restored.
    this.svm.withSigverify(opts.sigVerify);
    let result: ReturnType<LiteSVM["simulateTransaction"]>;
    try {
      result = this.svm.simulateTransaction(kit);
    } finally {
      this.svm.withSigverify(true);
    }
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result.meta();
    return {
      err: result instanceof FailedTransactionMetadata ? rpcTxError(result) : null,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
    };
  }

  /** Runs a wire transaction in the open slot; refuses it as a node's preflight would. */
  submit(wire: Uint8Array, opts: { skipPreflight?: boolean } = {}): string {
    const { parsed, signature, kit } = this.decode(wire);
    if (this.txs.has(signature))
      throw this.preflightError("This transaction has already been processed", "AlreadyProcessed");
    if (!this.isBlockhashValid(parsed.message.recentBlockhash))
      throw this.preflightError("Blockhash not found", "BlockhashNotFound");
    if (!opts.skipPreflight) {
      const sim = this.simulate(wire);
      if (sim.err) throw this.preflightError(describe(sim.err), sim.err, sim.logs, sim.unitsConsumed);
    }
    const accountKeys = parsed.message.staticAccountKeys.map((k) => k.toBase58());
    const pre = snapshotBalances(this.svm, accountKeys);
    const result = this.svm.sendTransaction(kit);
    const failed = result instanceof FailedTransactionMetadata;
    const meta: TransactionMetadata = failed ? result.meta() : result;
    const err = failed ? rpcTxError(result) : null;
    // A transaction that never got to run (bad signature, unknown fee payer) is not included, as on a cluster.
    if (err !== null && typeof err === "string") throw this.preflightError(err, err, meta.logs());
    const post = snapshotBalances(this.svm, accountKeys);
    const tx: TxRecord = {
      signature,
      slot: this.open.slot,
      blockTime: Math.floor(Date.now() / 1000),
      wire: Buffer.from(wire).toString("base64"),
      version: parsed.version === "legacy" ? "legacy" : 0,
      accountKeys,
      err,
      fee: LAMPORTS_PER_SIGNATURE * parsed.message.header.numRequiredSignatures,
      preBalances: pre.lamports,
      postBalances: post.lamports,
      preTokenBalances: pre.tokens,
      postTokenBalances: post.tokens,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
    };
    this.open.transactions.push(tx);
    this.transactionCount++;
    this.index(tx);
    for (const l of this.listeners) l.transaction?.(tx);
    return signature;
  }

  account(address: string) {
    const account = this.svm.getAccount(address as Address);
    return account.exists ? account : null;
  }
}

function describe(err: RpcTxError): string {
  if (typeof err === "string") return err;
  const ix = err.InstructionError as [number, unknown] | undefined;
  return ix ? `Error processing Instruction ${ix[0]}: ${JSON.stringify(ix[1])}` : JSON.stringify(err);
}
