import type { Consumer } from "kafkajs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { superviseConsumer } from "../../src/kafka/client.ts";

/** The one part of a kafkajs consumer the supervisor uses: its CRASH event. */
function crashingConsumer() {
  let listener: (e: { payload: { error: Error; restart: boolean } }) => void = () => {};
  const consumer = {
    events: { CRASH: "consumer.crash" },
    on: (_event: string, l: typeof listener) => {
      listener = l;
      return () => {};
    },
  } as unknown as Consumer;
  return { consumer, crash: (restart: boolean) => listener({ payload: { error: new Error("x"), restart } }) };
}

describe("superviseConsumer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("starts a consumer again after a crash kafkajs does not restart from, and reports the crash", async () => {
    const { consumer, crash } = crashingConsumer();
    const start = vi.fn(async () => {});
    const crashes: Error[] = [];
    superviseConsumer(consumer, { start, stopped: () => false, onCrash: (e) => crashes.push(e) });
    crash(false);
    expect(crashes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(start).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it("leaves a crash kafkajs restarts from to kafkajs", async () => {
    const { consumer, crash } = crashingConsumer();
    const start = vi.fn(async () => {});
    superviseConsumer(consumer, { start, stopped: () => false });
    crash(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(start).not.toHaveBeenCalled();
  });

  it("keeps trying, waiting longer each time up to a second, while connecting fails or the start crashes again", async () => {
    const { consumer, crash } = crashingConsumer();
    const outcomes = ["refused", "crashed", "refused", "refused", "runs"];
    const start = vi.fn(async () => {
      const outcome = outcomes.shift();
      if (outcome === "refused") throw new Error("ECONNREFUSED");
      if (outcome === "crashed") crash(false); // joining the group failed: run() still resolves
    });
    superviseConsumer(consumer, { start, stopped: () => false });
    crash(false);
    // 250 ms, 500 ms, then never more than a second: a broker back is used within a second.
    for (const [wait, calls] of [
      [250, 1],
      [500, 2],
      [1000, 3],
      [1000, 4],
      [1000, 5],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait - 1);
      expect(start).toHaveBeenCalledTimes(calls - 1);
      await vi.advanceTimersByTimeAsync(1);
      expect(start).toHaveBeenCalledTimes(calls);
    }
    await vi.advanceTimersByTimeAsync(120_000);
    expect(start).toHaveBeenCalledTimes(5);
  });

  it("does not start a consumer its owner stopped", async () => {
    const { consumer, crash } = crashingConsumer();
    const start = vi.fn(async () => {});
    let stopped = false;
    superviseConsumer(consumer, { start, stopped: () => stopped });
    crash(false);
    stopped = true;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(start).not.toHaveBeenCalled();
  });
});
