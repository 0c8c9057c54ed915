// What the service's relayer spent, read on every chain of the local stack at once (the two EVM anvils
// and the Solana node), whichever family a stranger case plays on: a case that costs nothing must leave
// all of them untouched. Transactions are counted by the chain's own record (EVM: the relayer's nonce;
// Solana: the signatures it paid for as fee payer), and the native coin spent is held to those
// transactions' fees, so rent or value leaving the relayer shows as a difference.
import type { Connection, PublicKey } from "@solana/web3.js";
import type { Address } from "viem";
import { expect } from "vitest";
import { associatedTokenBalance } from "../../../src/chains/solana/token-accounts.ts";
import { type Ctx, tokenBalance } from "../delegate.ts";

export interface SolanaSide {
  sol: Connection;
  mint: PublicKey;
  relayer: PublicKey;
  /** The fast fill's vault: what it received bounds what the relayer may pay out on the EVM side. */
  vault: PublicKey;
}

type EvmMark = { nonce: number; block: bigint; wei: bigint; usdc: bigint };
type SolanaMark = { newest: string | undefined; lamports: bigint; vaultUsdc: bigint };
export type Mark = { evm: Map<number, EvmMark>; solana: SolanaMark };

/** Per chain ("31337", "31338", "solana"): transactions sent, native coin spent, and those transactions' fees. */
export interface Spend {
  transactions: Record<string, number>;
  native: Record<string, bigint>;
  fees: Record<string, bigint>;
  /** USDC that left the relayer on the EVM chains (the fast fill's inventory). */
  usdcPaid: bigint;
  /** USDC the Solana vault received. */
  vaultReceived: bigint;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function relayerLedger(evm: readonly Ctx[], solana: SolanaSide) {
  /** Every transaction the checked windows saw, per chain, whether or not it was expected there. */
  const counted: Record<string, number> = {};
  const relayerOf = (c: Ctx) => c.chain.relayer.address as Address;
  const record = (spent: Spend): Spend => {
    for (const [k, n] of Object.entries(spent.transactions)) counted[k] = (counted[k] ?? 0) + n;
    return spent;
  };

  /** Waits until every transaction the relayer sent on `c` is mined, so its fee can be read. */
  async function settledNonce(c: Ctx): Promise<number> {
    for (let i = 0; ; i++) {
      const count = (blockTag: "latest" | "pending") =>
        c.client.getTransactionCount({ address: relayerOf(c), blockTag });
      const [latest, pending] = await Promise.all([count("latest"), count("pending")]);
      if (latest === pending || i === 50) return pending;
      await sleep(200);
    }
  }

  async function mark(): Promise<Mark> {
    const marks = await Promise.all(
      evm.map(async (c): Promise<[number, EvmMark]> => {
        const nonce = await settledNonce(c);
        const [block, wei, usdc] = await Promise.all([
          c.client.getBlockNumber(),
          c.client.getBalance({ address: relayerOf(c) }),
          tokenBalance(c, relayerOf(c)),
        ]);
        return [c.chain.chainId, { nonce, block, wei, usdc }];
      }),
    );
    const [newest] = await solana.sol.getSignaturesForAddress(solana.relayer, { limit: 1 }, "confirmed");
    return {
      evm: new Map(marks),
      solana: {
        newest: newest?.signature,
        lamports: BigInt(await solana.sol.getBalance(solana.relayer, "confirmed")),
        vaultUsdc: await associatedTokenBalance(solana.sol, solana.mint, solana.vault),
      },
    };
  }

  /** The relayer's transactions on `c` mined after `from`, and the fees they paid. */
  async function evmFees(c: Ctx, from: bigint): Promise<bigint> {
    const to = await c.client.getBlockNumber();
    let fees = 0n;
    for (let n = from + 1n; n <= to; n++) {
      const block = await c.client.getBlock({ blockNumber: n, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== relayerOf(c).toLowerCase()) continue;
        const receipt = await c.client.getTransactionReceipt({ hash: tx.hash });
        fees += receipt.gasUsed * receipt.effectiveGasPrice;
      }
    }
    return fees;
  }

  /** The relayer's Solana transactions (as fee payer) since `m`, and their fees. */
  async function solanaSince(m: SolanaMark): Promise<{ count: number; fees: bigint }> {
    const sigs = await solana.sol.getSignaturesForAddress(
      solana.relayer,
      m.newest === undefined ? {} : { until: m.newest },
      "confirmed",
    );
    let count = 0;
    let fees = 0n;
    for (const s of sigs) {
      const tx = await solana.sol.getTransaction(s.signature, {
        commitment: "confirmed",
        maxSupportedTransactionVersion: 0,
      });
      if (!tx?.transaction.message.staticAccountKeys[0]?.equals(solana.relayer)) continue;
      count += 1;
      fees += BigInt(tx.meta?.fee ?? 0);
    }
    return { count, fees };
  }

  async function since(m: Mark): Promise<Spend> {
    const spend: Spend = { transactions: {}, native: {}, fees: {}, usdcPaid: 0n, vaultReceived: 0n };
    for (const c of evm) {
      const before = m.evm.get(c.chain.chainId);
      if (!before) throw new Error(`no mark for chain ${c.chain.chainId}`);
      const key = String(c.chain.chainId);
      spend.transactions[key] = (await settledNonce(c)) - before.nonce;
      spend.native[key] = before.wei - (await c.client.getBalance({ address: relayerOf(c) }));
      spend.fees[key] = await evmFees(c, before.block);
      const usdcNow = await tokenBalance(c, relayerOf(c));
      if (usdcNow < before.usdc) spend.usdcPaid += before.usdc - usdcNow;
    }
    const s = await solanaSince(m.solana);
    spend.transactions.solana = s.count;
    spend.native.solana =
      m.solana.lamports - BigInt(await solana.sol.getBalance(solana.relayer, "confirmed"));
    spend.fees.solana = s.fees;
    spend.vaultReceived =
      (await associatedTokenBalance(solana.sol, solana.mint, solana.vault)) - m.solana.vaultUsdc;
    return spend;
  }

  /**
   * Holds the relayer, since `before`, to exactly `expected` transactions per chain (none where not
   * named), to no native coin beyond their fees (exactly `native` where given), and to no more USDC
   * paid out than the vault received.
   */
  async function spentSince(
    before: Mark,
    expected: Record<string, number>,
    native: Record<string, bigint> = {},
  ): Promise<void> {
    // A relayed transaction lands within a couple of blocks or slots: wait before counting.
    await sleep(2_500);
    const spent = record(await since(before));
    const want = Object.fromEntries(Object.keys(spent.transactions).map((k) => [k, expected[k] ?? 0]));
    const shown = JSON.stringify(spent, (_, v) => (typeof v === "bigint" ? v.toString() : v));
    expect(spent.transactions, shown).toEqual(want);
    expect(spent.native, shown).toEqual(spent.fees);
    for (const [chain, amount] of Object.entries(native)) expect(spent.native[chain], shown).toBe(amount);
    expect(spent.usdcPaid, shown).toBeLessThanOrEqual(spent.vaultReceived);
  }

  /**
   * Runs `act` and holds the relayer to what it costs (spentSince), counted from `from` (default: now);
   * what a failing `act` cost is still counted.
   */
  async function pays<T>(
    expected: Record<string, number>,
    act: () => Promise<T>,
    native?: Record<string, bigint>,
    from?: Mark,
  ): Promise<T> {
    const before = from ?? (await mark());
    const result = await act().catch(async (err: unknown) => {
      await sleep(2_500);
      record(await since(before));
      throw err;
    });
    await spentSince(before, expected, native);
    return result;
  }

  /** The transactions the checked windows saw since `forget`, per chain. */
  const seen = () => ({ ...counted });
  const forget = () => {
    for (const k of Object.keys(counted)) delete counted[k];
  };

  return { mark, since, spentSince, pays, seen, forget };
}

export type RelayerLedger = ReturnType<typeof relayerLedger>;
