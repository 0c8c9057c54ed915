import cassandra from "cassandra-driver";
import { describe, expect, it, vi } from "vitest";
import type { StepTry } from "../../src/chains/adapter.ts";
import { bumped, replacementFees } from "../../src/chains/evm/settle/fees.ts";
import { StepReverted, TransactionStuck, UpstreamUnavailable } from "../../src/chains/execution-errors.ts";
import { runStep, StepGaveUp } from "../../src/executor/step.ts";

const HASH = `0x${"ab".repeat(32)}` as const;
const policy = (maxAttempts: number) => ({
  maxAttempts,
  baseMs: 1,
  maxMs: 2,
  signal: new AbortController().signal,
});

/** Runs a step whose tries fail with `errors` in turn, then succeed; records each try and each report. */
async function run(errors: unknown[], maxAttempts = 5) {
  const tries: StepTry[] = [];
  const retried: Array<{ message: string; txHash: string | null }> = [];
  const onGiveUp = vi.fn(async () => {});
  const outcome = await runStep(
    "cmd/sweep",
    policy(maxAttempts),
    {
      onSubmitted: async () => {},
      onRetry: async (err, txHash) => {
        retried.push({ message: (err as Error).message, txHash });
      },
      onGiveUp,
    },
    async (t) => {
      tries.push(t);
      const err = errors.shift();
      if (err !== undefined) throw err;
      return "mined";
    },
  ).catch((err: unknown) => err);
  return { outcome, tries, retried, onGiveUp };
}

describe("runStep", () => {
  it("reports each failed try that will be tried again, then returns what the last try did", async () => {
    const r = await run([
      new UpstreamUnavailable("node down", null),
      new UpstreamUnavailable("node down", null),
    ]);
    expect(r.outcome).toBe("mined");
    expect(r.tries).toHaveLength(3);
    expect(r.retried).toEqual([
      { message: "node down", txHash: null },
      { message: "node down", txHash: null },
    ]);
  });

  it("waits out the store being unreachable without spending tries or reporting failures", async () => {
    const down = () => new cassandra.errors.NoHostAvailableError({});
    const r = await run([down(), down(), down(), new UpstreamUnavailable("node down", null), down()], 2);
    expect(r.outcome).toBe("mined");
    expect(r.tries).toHaveLength(6);
    expect(r.retried).toEqual([{ message: "node down", txHash: null }]);
  });

  it("asks for a replacement with higher fees only on the try after a stuck transaction", async () => {
    const r = await run([
      new TransactionStuck("not mined", HASH),
      new UpstreamUnavailable("node down", null),
    ]);
    expect(r.tries.map((t) => t.bump)).toEqual([false, true, false]);
    expect(r.retried[0]?.txHash).toBe(HASH);
    expect(r.tries.every((t) => t.key === "cmd/sweep")).toBe(true);
  });

  it("gives up at once on a terminal failure: no retry reported, nothing cancelled", async () => {
    const r = await run([new StepReverted("reverts: BelowMinOut(1, 2)", null)]);
    expect(r.outcome).toBeInstanceOf(StepGaveUp);
    expect((r.outcome as StepGaveUp).message).toBe("reverts: BelowMinOut(1, 2)");
    expect(r.tries).toHaveLength(1);
    expect(r.retried).toEqual([]);
    expect(r.onGiveUp).not.toHaveBeenCalled();
  });

  it("after the last try, cancels what may be pending and gives up with the last failure's hash", async () => {
    const stuck = () => new TransactionStuck("not mined", HASH);
    const r = await run([stuck(), stuck(), stuck()], 3);
    expect(r.outcome).toBeInstanceOf(StepGaveUp);
    expect((r.outcome as StepGaveUp).message).toBe("gave up after 3 tries: not mined");
    expect((r.outcome as StepGaveUp).txHash).toBe(HASH);
    expect(r.retried).toHaveLength(2);
    expect(r.onGiveUp).toHaveBeenCalledOnce();
  });

  it("retries an error of unknown origin (the ledger makes another try safe)", async () => {
    const r = await run([new Error("socket hang up")]);
    expect(r.outcome).toBe("mined");
    expect(r.retried).toEqual([{ message: "socket hang up", txHash: null }]);
  });
});

describe("replacement fees", () => {
  it("raise both fields by at least the bump, rounding up", () => {
    expect(bumped(100n, 12.5)).toBe(113n);
    expect(bumped(1n, 12.5)).toBe(2n);
    expect(bumped(1_000_000_000n, 25)).toBe(1_250_000_000n);
    const fees = replacementFees(
      { maxFeePerGas: 2000n, maxPriorityFeePerGas: 1000n },
      { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      12.5,
    );
    expect(fees).toEqual({ maxFeePerGas: 2250n, maxPriorityFeePerGas: 1125n });
  });

  it("follow the node's estimate when it rose more than the bump, and never cap below the tip", () => {
    const fees = replacementFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 10n },
      { maxFeePerGas: 500n, maxPriorityFeePerGas: 400n },
      25,
    );
    expect(fees).toEqual({ maxFeePerGas: 500n, maxPriorityFeePerGas: 400n });
    const tipHeavy = replacementFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 90n },
      { maxFeePerGas: 0n, maxPriorityFeePerGas: 200n },
      25,
    );
    expect(tipHeavy.maxFeePerGas).toBeGreaterThanOrEqual(tipHeavy.maxPriorityFeePerGas);
  });
});
