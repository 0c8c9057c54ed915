import type { FillPayer, Mined, StepTry } from "../chains/adapter.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import type { FillInventory, Inventory } from "../store/fill-inventory.ts";
import { sleep } from "../support/retry.ts";
import type { Report } from "./results.ts";
import { StepGaveUp } from "./step.ts";

export type FastFillCommand = Extract<ExecutorCommand["command"], { type: "FastFill" }>;

export interface FillSettings {
  /** USDC base units the relayer keeps on the chain: a fill never promises them. */
  floor: bigint;
  /** While short, how often the inventory is looked at again. */
  retryMs: number;
  /** How long a fill waits for inventory in all (per delivery of the command) before it fails. */
  maxWaitMs: number;
}

/** What the operator watches, per chain (docs/SOLANA.md, "What an operator watches"). */
export interface FillGauges {
  inventory(chainId: number, inventory: Inventory): void;
  fill(chainId: number, outcome: "reserved" | "short" | "paid" | "released"): void;
}

export interface FillDeps {
  inventory: FillInventory;
  settings: FillSettings;
  gauges: FillGauges;
  report: Report;
  signal: AbortSignal;
  /** The command's chain step runner (handle-command's: ledger key, retries, give-up). */
  step: <T>(name: string, chainId: number, fn: (t: StepTry) => Promise<T>, submitted?: boolean) => Promise<T>;
  log: (msg: string, fields?: object) => void;
}

const shortfall = (needed: bigint, free: bigint, i: Inventory, chainId: number) =>
  `needs ${needed} USDC base units on chain ${chainId}, ${free} free (balance ${i.balance}, reserved ${i.reserved}, floor ${i.floor})`;

/**
 * The fast fill on the destination (EVM) chain: reserve the amount in the inventory ledger (exactly
 * once per command id), pay it from the relayer's USDC, close the reservation as paid, and report
 * BridgeRelayed: the session reads it as the money delivered on the destination, as for a CCTP relay.
 * While the inventory is short the fill waits, bounded by `maxWaitMs`, and then fails with the
 * shortfall; a payout that fails for good releases its reservation. A re-delivered command finds its
 * reservation and its payout (the executor ledger) again: nothing is reserved or paid twice.
 */
export async function runFastFill(
  command: ExecutorCommand,
  c: FastFillCommand,
  payer: FillPayer,
  deps: FillDeps,
): Promise<void> {
  const { chainId, commandId } = command;
  const reserve = () =>
    deps.step(
      "fill-reserve",
      chainId,
      () =>
        deps.inventory.reserve({
          chainId,
          key: commandId,
          amount: c.amount,
          floor: deps.settings.floor,
          balance: () => payer.inventory(),
        }),
      false,
    );

  const giveUpAt = Date.now() + deps.settings.maxWaitMs;
  let reported = false;
  for (;;) {
    const r = await reserve();
    if (r.kind !== "paid") deps.gauges.inventory(chainId, r.inventory);
    if (r.kind !== "short") {
      if (r.kind === "reserved") deps.gauges.fill(chainId, "reserved");
      break;
    }
    deps.gauges.fill(chainId, "short");
    const why = shortfall(r.needed, r.free, r.inventory, chainId);
    if (Date.now() + deps.settings.retryMs > giveUpAt) {
      throw new StepGaveUp(
        `fast fill refused: the relayer's USDC inventory is short: ${why}; waited ${Math.round(deps.settings.maxWaitMs / 1000)} s`,
        null,
      );
    }
    // Said once: the session shows why it waits (its error_message) while it is still sweeping.
    if (!reported) {
      await deps.report(command, {
        type: "ExecutionFailed",
        errorMessage: `fast fill waits for inventory: ${why}`,
        retryable: true,
        txHash: null,
      });
      reported = true;
    }
    deps.log("fast fill waits for inventory", { commandId, chainId, needed: c.amount, free: r.free });
    await sleep(deps.settings.retryMs, deps.signal);
  }

  let paid: Mined;
  try {
    // The payout's hash is not a TransactionSubmitted: the session reads that as its sweep's.
    paid = await deps.step("fill", chainId, (t) => payer.payout(c.to, c.amount, t), false);
  } catch (err) {
    // Given up: its pending transaction was cancelled, nothing was paid, the inventory is free again.
    // A shutdown leaves the reservation for the next delivery of the command, which resumes it.
    if (err instanceof StepGaveUp) {
      await deps.inventory.close(chainId, commandId, { state: "released" });
      deps.gauges.fill(chainId, "released");
    }
    throw err;
  }
  if (await deps.inventory.close(chainId, commandId, { state: "paid", txHash: paid.txHash }))
    deps.gauges.fill(chainId, "paid");
  await deps.report(command, {
    type: "BridgeRelayed",
    txHash: paid.txHash,
    blockNumber: paid.blockNumber,
    destChainId: chainId,
    mintedAmount: c.amount,
    gas: paid.gas,
  });
}
