import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BaseError, isTerminal, TerminalError } from "../../src/support/errors.ts";
import { backoff, type RetryOptions, retry } from "../../src/support/retry.ts";

class RpcTimeoutError extends BaseError {
  readonly code = "rpc_timeout";
  readonly retryable = true;
}
const transient = () => new RpcTimeoutError("the node did not answer");
const terminal = () => new TerminalError("bad_signature", "the signature is invalid");

/** Fails with each given error in turn, then resolves "done"; records when each try started. */
function flaky(errors: unknown[]) {
  const startedAt: number[] = [];
  const fn = vi.fn(async () => {
    startedAt.push(Date.now());
    const err = errors.shift();
    if (err !== undefined) throw err;
    return "done";
  });
  return { fn, startedAt };
}

// random() = 0 makes each wait exactly half its exponential step: 50, 100, 200, 400, 400, ...
const options = (more: Partial<RetryOptions> = {}): RetryOptions => ({
  attempts: 5,
  baseMs: 100,
  maxMs: 800,
  random: () => 0,
  ...more,
});

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("retry", () => {
  it("retries a retryable failure with exponential waits until it succeeds", async () => {
    const { fn, startedAt } = flaky([transient(), transient(), transient()]);
    const result = retry(fn, options());
    await vi.runAllTimersAsync();
    expect(await result).toBe("done");
    expect(startedAt).toEqual([0, 50, 150, 350]);
  });

  it("caps the wait at maxMs", async () => {
    const { fn, startedAt } = flaky(Array.from({ length: 6 }, transient));
    const result = retry(fn, options({ attempts: 10, maxMs: 200 }));
    await vi.runAllTimersAsync();
    await result;
    expect(startedAt.slice(1).map((t, i) => t - (startedAt[i] ?? 0))).toEqual([50, 100, 100, 100, 100, 100]);
  });

  it("never retries a terminal error", async () => {
    const err = terminal();
    const { fn } = flaky([err]);
    await expect(retry(fn, options())).rejects.toBe(err);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it("does not retry an error of unknown origin unless told to", async () => {
    const { fn } = flaky([new Error("who knows")]);
    await expect(retry(fn, options())).rejects.toThrow("who knows");
    expect(fn).toHaveBeenCalledTimes(1);

    const told = flaky([new Error("who knows")]);
    const result = retry(told.fn, options({ isRetryable: (e) => !isTerminal(e) }));
    await vi.runAllTimersAsync();
    expect(await result).toBe("done");
  });

  it("throws the last failure unchanged once the attempts are used up", async () => {
    const errors = [transient(), transient(), transient()];
    const last = errors[2];
    const { fn } = flaky([...errors, transient()]);
    const result = retry(fn, options({ attempts: 3 }));
    const settled = expect(result).rejects.toBe(last);
    await vi.runAllTimersAsync();
    await settled;
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it("stops waiting as soon as the signal aborts, with the signal's reason", async () => {
    const controller = new AbortController();
    const { fn } = flaky([transient(), transient()]);
    const result = retry(fn, options({ signal: controller.signal }));
    const settled = expect(result).rejects.toThrow("shutting down");
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new Error("shutting down"));
    await settled;
    expect(fn).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("starts no attempt once the signal has aborted", async () => {
    const { fn } = flaky([]);
    await expect(retry(fn, options({ signal: AbortSignal.abort(new Error("stopped")) }))).rejects.toThrow(
      "stopped",
    );
    expect(fn).not.toHaveBeenCalled();
  });

  it("waits baseMs again and counts attempts afresh after the work reports progress", async () => {
    const seen: Array<{ attempt: number; delayMs: number }> = [];
    let calls = 0;
    const result = retry(
      async (context) => {
        calls++;
        if (calls === 3) context.reset(); // e.g. a block was indexed before the next failure
        if (calls < 5) throw transient();
        return calls;
      },
      options({ attempts: 3, onRetry: (_err, info) => seen.push(info) }),
    );
    await vi.runAllTimersAsync();
    expect(await result).toBe(5);
    expect(seen).toEqual([
      { attempt: 1, delayMs: 50 },
      { attempt: 2, delayMs: 100 },
      { attempt: 1, delayMs: 50 },
      { attempt: 2, delayMs: 100 },
    ]);
  });
});

describe("backoff", () => {
  it("adds up to half the step at random, so two retrying processes drift apart", () => {
    const limits = { baseMs: 100, maxMs: 1000 };
    expect([backoff(3, limits, 0), backoff(3, limits, 0.5), backoff(3, limits, 0.999)]).toEqual([
      200, 300, 400,
    ]);
    expect(backoff(20, limits, 0.999)).toBe(1000);
  });
});
