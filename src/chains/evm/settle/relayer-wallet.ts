import { randomUUID } from "node:crypto";
import {
  type Address,
  type Hex,
  keccak256,
  type PublicClient,
  parseTransaction,
  type SignedAuthorization,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ExecutorLedger, LedgerRow } from "../../../store/executor-ledger.ts";
import type { StepTry } from "../../adapter.ts";
import {
  NonceTaken,
  StepOwnedElsewhere,
  TransactionStuck,
  UpstreamUnavailable,
} from "../../execution-errors.ts";
import { type Fees, replacementFees } from "./fees.ts";

/** A call the relayer pays for; `gas` is estimated by the builder (which also proves the call does not revert). */
export interface TxRequest {
  to: Address;
  data: Hex;
  gas: bigint;
  authorizationList?: SignedAuthorization[];
}

export interface RelayerWalletOptions {
  chainId: number;
  client: PublicClient;
  privateKey: Hex;
  ledger: ExecutorLedger;
  stuckAfterMs: number;
  /** >= 12.5: nodes refuse a replacement that raises a fee field by less than 10%. */
  feeBumpPercent: number;
  pollMs?: number;
  /** Shutdown: a wait for a receipt stops at once (the transaction is in the ledger; the next owner resumes it). */
  signal?: AbortSignal;
  /** A claim on a nonce older than this whose transaction no node knows is stale (a chain that rewound). */
  staleClaimMs?: number;
  /**
   * How long a step claim holds without renewal before another executor may take the step over
   * (its owner crashed between claiming the step and recording a transaction). Far longer than the
   * claim-to-broadcast path, which renews it; 30 s by default.
   */
  stepLeaseMs?: number;
  /**
   * How long after its nonce is seen used a transaction of ours is still looked for before it counts
   * as superseded: a node's receipts can lag its nonce count. 5 s by default.
   */
  receiptLagMs?: number;
}

export type RelayerWallet = ReturnType<typeof createRelayerWallet>;

/**
 * One relayer account on one chain. Every transaction is signed, recorded in the ledger (claiming its
 * nonce) and only then broadcast; a step that finds its row again resumes that transaction (re-sends
 * the recorded bytes, or replaces them at the same nonce when asked to bump) and never signs a
 * second transaction while the first might still mine.
 */
export function createRelayerWallet(opts: RelayerWalletOptions) {
  const { client, ledger, chainId } = opts;
  const account = privateKeyToAccount(opts.privateKey);
  const relayer = account.address.toLowerCase();
  const pollMs = opts.pollMs ?? 250;
  const staleClaimMs = opts.staleClaimMs ?? 10 * 60_000;
  const stepLeaseMs = opts.stepLeaseMs ?? 30_000;
  const receiptLagMs = opts.receiptLagMs ?? 5_000;
  // Who claims steps: this wallet, in this process. Two executors never share it, even in one process.
  const owner = `${relayer}/${randomUUID()}`;
  // Nonce choice and broadcast run one at a time per process, so the node's pending count includes
  // our previous transaction before the next is numbered; other processes are kept apart by the claim.
  let allocating: Promise<unknown> = Promise.resolve();
  const serially = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = allocating.then(fn, fn);
    allocating = run.catch(() => {});
    return run;
  };

  const rpc = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw new UpstreamUnavailable(`chain ${chainId}: ${what} failed: ${shortOf(err)}`, null, {
        cause: err,
      });
    }
  };

  async function receiptOf(hash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return null;
      throw new UpstreamUnavailable(`chain ${chainId}: receipt of ${hash}: ${shortOf(err)}`, hash, {
        cause: err,
      });
    }
  }

  /** Mined (with which hash), still possibly pending, or its nonce used by a transaction we did not record. */
  async function reconcile(
    row: LedgerRow,
  ): Promise<{ kind: "mined"; receipt: TransactionReceipt } | { kind: "pending" | "superseded" }> {
    let usedSince: number | null = null;
    for (;;) {
      for (const hash of [row.txHash, ...row.hashes.filter((h) => h !== row.txHash)]) {
        const receipt = await receiptOf(hash);
        if (receipt) {
          if (row.state !== "mined" || row.txHash !== hash) await ledger.settle(row, "mined", hash);
          return { kind: "mined", receipt };
        }
      }
      if (usedSince !== null && Date.now() - usedSince >= receiptLagMs) break;
      if (usedSince === null) {
        const used = await rpc("nonce", () =>
          client.getTransactionCount({ address: account.address, blockTag: "latest" }),
        );
        if (BigInt(used) <= row.nonce) return { kind: "pending" };
        usedSince = Date.now();
      }
      // The nonce is used, by ours or another. A node may count it used before it serves the
      // receipt (anvil under load did, 0.5 s after the send): "superseded" then would sign the step
      // again, and a sweep already mined failed its session (docs/RELIABILITY.md). So ours is
      // looked for until the nonce has been used for receiptLagMs.
      opts.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, pollMs));
    }
    await ledger.settle(row, "superseded", row.txHash);
    return { kind: "superseded" };
  }

  async function broadcast(raw: Hex, hash: Hex): Promise<void> {
    try {
      await client.sendRawTransaction({ serializedTransaction: raw });
    } catch (err) {
      // The node's own words are in viem's details, under a generic short message.
      const text = (err instanceof Error ? err.message : String(err)).toLowerCase();
      // Already in the pool, or the nonce is used (by this very transaction, or another: reconcile tells).
      if (
        /already known|known transaction|already imported|nonce too low|nonce has already been used/.test(
          text,
        )
      )
        return;
      throw new UpstreamUnavailable(`chain ${chainId}: broadcast of ${hash} failed: ${shortOf(err)}`, hash, {
        cause: err,
      });
    }
  }

  async function sign(req: TxRequest, nonce: bigint, fees: Fees): Promise<{ raw: Hex; hash: Hex }> {
    const base = {
      chainId,
      to: req.to,
      data: req.data,
      gas: req.gas,
      nonce: Number(nonce),
      value: 0n,
      ...fees,
    };
    const raw = req.authorizationList?.length
      ? await account.signTransaction({ ...base, type: "eip7702", authorizationList: req.authorizationList })
      : await account.signTransaction({ ...base, type: "eip1559" });
    return { raw, hash: keccak256(raw) };
  }

  /** A claim we may reuse: another step's transaction that can no longer mine at this nonce. */
  async function isStale(row: LedgerRow): Promise<boolean> {
    if (row.state === "signed" && Date.now() - row.createdAt.getTime() < staleClaimMs) return false;
    for (const hash of row.hashes) {
      const known = await rpc("lookup", () => client.getTransaction({ hash }).catch(() => null));
      if (known) return false;
    }
    return true;
  }

  /** Numbers, signs, records and broadcasts a new transaction for the step. */
  const signNew = (key: string, req: TxRequest): Promise<LedgerRow> =>
    serially(async () => {
      let nonce = BigInt(
        await rpc("nonce", () =>
          client.getTransactionCount({ address: account.address, blockTag: "pending" }),
        ),
      );
      const fees = await currentFees();
      for (;;) {
        const { raw, hash } = await sign(req, nonce, fees);
        const row = { chainId, relayer, nonce, stepKey: key, rawTx: raw, txHash: hash, attempt: 1 };
        const held = await ledger.claim(row);
        const mine =
          !held ||
          ((await isStale(held)) && (await ledger.replace(held, held.txHash, { ...row, resetHashes: true })));
        if (mine) {
          // Still the step's owner? A stall past the lease may have let another executor take the step
          // over meanwhile: then this transaction is never sent and its nonce is released for reuse.
          if (!(await ledger.holdsStep(key, owner, stepLeaseMs))) {
            await ledger.settle(row, "superseded", hash);
            throw new StepOwnedElsewhere(
              `chain ${chainId}: step ${key} was taken over before broadcast`,
              null,
            );
          }
          await broadcast(raw, hash);
          return { ...row, hashes: [hash], state: "signed", createdAt: new Date() };
        }
        nonce++;
      }
    });

  async function currentFees(): Promise<Fees> {
    const f = await rpc("fees", () => client.estimateFeesPerGas());
    return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
  }

  /**
   * The same transaction (or `instead`) at the same nonce with both fee fields raised by at least
   * the bump: nodes drop the one it replaces, so only one of them can be mined.
   */
  async function replace(row: LedgerRow, instead?: TxRequest): Promise<LedgerRow> {
    const old = parseTransaction(row.rawTx);
    const fees = replacementFees(
      { maxFeePerGas: old.maxFeePerGas ?? 0n, maxPriorityFeePerGas: old.maxPriorityFeePerGas ?? 0n },
      await currentFees(),
      opts.feeBumpPercent,
    );
    const req: TxRequest = instead ?? {
      to: old.to as Address,
      data: old.data ?? "0x",
      gas: old.gas ?? 0n,
      ...(old.authorizationList ? { authorizationList: old.authorizationList as SignedAuthorization[] } : {}),
    };
    const { raw, hash } = await sign(req, row.nonce, fees);
    const next = { stepKey: row.stepKey, rawTx: raw, txHash: hash, attempt: row.attempt + 1 };
    if (!(await ledger.replace(row, row.txHash, next))) {
      // Another process replaced it first: carry on with its row.
      const again = (await ledger.byStep(row.stepKey)).find((r) => r.nonce === row.nonce);
      if (again) return again;
    }
    return { ...row, ...next, hashes: [...row.hashes, hash] };
  }

  /** Polls until one of the row's transactions is mined, or throws stuck / superseded. */
  async function waitMined(row: LedgerRow): Promise<TransactionReceipt> {
    const deadline = Date.now() + opts.stuckAfterMs;
    for (;;) {
      const found = await reconcile(row);
      if (found.kind === "mined") return found.receipt;
      if (found.kind === "superseded")
        throw new NonceTaken(
          `chain ${chainId}: nonce ${row.nonce} was used by another transaction`,
          row.txHash,
        );
      if (Date.now() >= deadline)
        throw new TransactionStuck(
          `chain ${chainId}: ${row.txHash} (nonce ${row.nonce}) not mined after ${opts.stuckAfterMs} ms`,
          row.txHash,
        );
      opts.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  /** Waits for the step's recorded transaction (mined, or pending: re-sent, bumped if asked); null when superseded. */
  async function resume(row: LedgerRow, step: StepTry): Promise<TransactionReceipt | null> {
    const found = await reconcile(row);
    if (found.kind === "mined") return found.receipt;
    if (found.kind === "superseded") return null;
    const sent = step.bump ? await replace(row) : row;
    await broadcast(sent.rawTx, sent.txHash);
    await step.onSubmitted(sent.txHash);
    return waitMined(sent);
  }

  /**
   * Claims the step before any nonce is (docs/EXECUTOR.md, "One owner per step"). Resolves null once
   * it is this wallet's; while another executor holds it, waits until that owner's transaction is
   * in the ledger (and answers its row: the step resumes it, never signs a second one) or its lease
   * runs out (and the step is taken over).
   */
  async function ownStep(key: string): Promise<LedgerRow | null> {
    for (;;) {
      const holder = await ledger.claimStep(key, owner, stepLeaseMs);
      if (holder.owner === owner) return null;
      const theirs = (await ledger.byStep(key)).filter((r) => r.state !== "superseded").at(-1);
      if (theirs) return theirs;
      opts.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }

  return {
    address: account.address,
    /**
     * Makes a step given up on unable to happen later: its pending transaction is replaced at its
     * nonce by a transfer of nothing to the relayer itself. Returns that transaction's hash, or null
     * when nothing of the step is pending.
     */
    async cancel(key: string): Promise<Hex | null> {
      const live = (await ledger.byStep(key)).filter((r) => r.state === "signed").at(-1);
      if (!live || (await reconcile(live)).kind !== "pending") return null;
      const row = await replace(live, { to: account.address, data: "0x", gas: 21_000n });
      await broadcast(row.rawTx, row.txHash);
      return row.txHash;
    },
    /**
     * Sends the step's transaction, or resumes the one the ledger holds for it, and resolves with
     * the receipt once mined. `build` runs only when a new transaction must be signed.
     */
    async send(step: StepTry, build: () => Promise<TxRequest>): Promise<TransactionReceipt> {
      const live = (await ledger.byStep(step.key)).filter((r) => r.state !== "superseded").at(-1);
      const resumed = live && (await resume(live, step));
      if (resumed) return resumed;
      // No transaction of the step can still mine: a new one is signed, by the step's one owner.
      const owners = await ownStep(step.key);
      if (owners) {
        const theirs = await resume(owners, step);
        if (theirs) return theirs;
        throw new StepOwnedElsewhere(`chain ${chainId}: step ${step.key} is another executor's`, null);
      }
      const row = await signNew(step.key, await build());
      await step.onSubmitted(row.txHash);
      return waitMined(row);
    },
  };
}

const shortOf = (err: unknown): string =>
  err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err);
